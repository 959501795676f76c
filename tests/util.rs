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
