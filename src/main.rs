//! The `toolgate` command: a thin layer over the library.
//!
//! On Linux with glibc the process starts at a C `main` of its own instead
//! of Rust's runtime start-up. A hook is one process per tool call, and that
//! start-up spends a seventh of a hook's instructions (about 0.1 M, and 21
//! system calls) finding the main thread's stack: glibc's
//! `pthread_getattr_np` reads and `sscanf`s `/proc/self/maps` for it, so
//! that a stack overflow can be reported by name. What else the runtime's
//! start-up does for a program is done here the same way: standard streams
//! that were closed are opened on `/dev/null` (so that no file toolgate
//! opens can become its stdout), `SIGPIPE` is ignored (a closed pipe is an
//! error toolgate handles, not a signal that kills it), a panic exits with
//! status 101, and the standard output is flushed at exit. Arguments still
//! reach `std::env::args`: glibc hands them to the standard library at
//! load time. The one thing lost is the message a stack overflow prints;
//! it still ends the process, as it did.
//!
//! Elsewhere, and in the unit tests' binary (whose `main` is the test
//! harness), `fn main` is Rust's own.

#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

mod cli;

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli::main())
}

/// The process's entry point, called by glibc's start-up.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    open_standard_streams();
    // SAFETY: setting a signal's disposition to "ignore" runs no code of
    // ours in a handler; nothing else has started yet.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // A panic has been reported by the panic hook already; 101 is the
    // status Rust's runtime gives a panicking `main`.
    let status = std::panic::catch_unwind(cli::main).unwrap_or(101);
    // Flushes the standard output, then exits.
    std::process::exit(i32::from(status))
}

/// Opens `/dev/null` on each of the standard streams that is closed.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn open_standard_streams() {
    for fd in 0..3 {
        // SAFETY: F_GETFD only asks whether `fd` is open.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        if closed {
            // `open` returns the lowest closed descriptor: `fd` itself,
            // since the ones below it are open by now. If it fails, `fd`
            // stays closed, as the runtime would leave it.
            // SAFETY: a valid NUL-terminated path; the descriptor is kept
            // for the life of the process on purpose.
            unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        }
    }
}
