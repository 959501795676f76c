//! Which environment variables hold no secret: the one list that a spec's
//! `env-name` role (`printenv LANG`) and the shell front end's reading of
//! `$NAME` (`echo "$PWD"`) both keep to.

/// The environment variables known to hold no secret: none is a place
/// where tools or people keep credentials (the locale, the terminal, the
/// places a session keeps, who it runs as). Any other name may hold a
/// token. (Sorted, for a binary search; a test checks.)
pub const NON_SECRET_VARIABLES: &[&str] = &[
    "COLORTERM",
    "COLUMNS",
    "EDITOR",
    "HOME",
    "HOSTNAME",
    "LANG",
    "LANGUAGE",
    "LC_ADDRESS",
    "LC_ALL",
    "LC_COLLATE",
    "LC_CTYPE",
    "LC_IDENTIFICATION",
    "LC_MEASUREMENT",
    "LC_MESSAGES",
    "LC_MONETARY",
    "LC_NAME",
    "LC_NUMERIC",
    "LC_PAPER",
    "LC_TELEPHONE",
    "LC_TIME",
    "LINES",
    "LOGNAME",
    "OLDPWD",
    "PAGER",
    "PATH",
    "PWD",
    "SHELL",
    "SHLVL",
    "TERM",
    "TMPDIR",
    "TZ",
    "USER",
    "VISUAL",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_STATE_HOME",
];

/// Whether the variable `name` is one of [`NON_SECRET_VARIABLES`].
pub fn holds_no_secret(name: &str) -> bool {
    NON_SECRET_VARIABLES.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_names_are_exact() {
        assert!(NON_SECRET_VARIABLES.windows(2).all(|w| w[0] < w[1]));
        assert!(holds_no_secret("PWD") && holds_no_secret("HOME"));
        for name in ["PAT", "PW", "HOMEX", "pwd", "", "GITHUB_TOKEN", "TMP"] {
            assert!(!holds_no_secret(name), "{name}");
        }
    }
}
