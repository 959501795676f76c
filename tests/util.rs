//! Running the built `toolgate` binary the way users and agents do.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `toolgate ARGS` with `stdin` piped in and `env` set, in the
/// environment of [`isolated`].
pub fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = isolated(env!("CARGO_BIN_EXE_toolgate"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning toolgate: {e}"));
    if let Some(mut pipe) = child.stdin.take() {
        // A child that stops reading early (a refused payload) is fine.
        let _ = pipe.write_all(stdin);
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for toolgate: {e}"))
}

/// `program` (toolgate, or a shell that runs it) with the hook's
/// environment variables cleared, no user config file in reach and the
/// decision log off (a test that wants it sets `TOOLGATE_LOG` and
/// `TOOLGATE_STATE_DIR`), so that tests never write to the real home.
pub fn isolated(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_remove("TOOLGATE_MODE")
        .env_remove("TOOLGATE_CONFIG")
        .env_remove("TOOLGATE_HEADLESS")
        .env_remove("TOOLGATE_PROFILE")
        .env_remove("TOOLGATE_PROFILE_DIR")
        .env_remove("TOOLGATE_STATE_DIR")
        .env_remove("XDG_STATE_HOME")
        .env("TOOLGATE_LOG", "0")
        .env("XDG_CONFIG_HOME", "/nonexistent-toolgate-test");
    cmd
}

/// A temporary `$HOME` (with `$XDG_CONFIG_HOME` inside it) for tests that
/// install, edit or read a user's settings; removed when dropped.
pub struct Home(std::path::PathBuf);

impl Home {
    /// A fresh home for the test `name` of the file `kind` (`install`).
    pub fn new(kind: &str, name: &str) -> Home {
        let dir =
            std::env::temp_dir().join(format!("toolgate-{kind}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Home(dir)
    }

    /// The home itself.
    pub fn root(&self) -> &std::path::Path {
        &self.0
    }

    /// `rel` under the home.
    pub fn path(&self, rel: &str) -> std::path::PathBuf {
        self.0.join(rel)
    }

    /// Writes `text` to `rel`, making its folders.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        }
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }

    /// The text of `rel`.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// `toolgate ARGS` with this home, isolated as [`isolated`] is.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = isolated(env!("CARGO_BIN_EXE_toolgate"));
        cmd.args(args)
            .env("HOME", &self.0)
            .env("XDG_CONFIG_HOME", self.path(".config"));
        cmd
    }

    /// Runs `toolgate ARGS` with this home.
    pub fn run(&self, args: &[&str]) -> Output {
        output_of(args, self.command(args))
    }

    /// The stdout of `toolgate ARGS` with this home, which must succeed.
    pub fn ok(&self, args: &[&str]) -> String {
        stdout_of_success(args, self.run(args))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The output of `toolgate ARGS` run as `cmd`.
pub fn output_of(args: &[&str], mut cmd: Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running toolgate {args:?}: {e}"))
}

/// The stdout of `toolgate ARGS`, whose output `out` must be a success.
pub fn stdout_of_success(args: &[&str], out: Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "toolgate {args:?}: {}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}
