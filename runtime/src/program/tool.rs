//! Running the external compiler programs (`clang-15`, `opt-15`, `llvm-spirv-15`,
//! `spirv-link`) with limits, and saying in the build log how they ended.
//!
//! A program build must not hang the application or take the machine's memory with it, and
//! a compiler that crashes must say so: a build log of "program build failed" after clang
//! died of a signal sends users looking for a mistake in their kernel. So every child:
//! - runs at most [`timeout`] (120 s, `FERRITE_CLANG_TIMEOUT_S` in seconds), then it and
//!   whatever it started (its own process group) are killed;
//! - may map at most [`memory_limit`] bytes (`RLIMIT_AS`, 4 GiB, `FERRITE_CLANG_MEMORY_MB`
//!   in MiB; 0 lifts it), set between `fork` and `exec`;
//! - ends in a [`ToolRun`] whose [`ToolRun::log`] is its stderr and stdout, preceded by a
//!   line naming the signal that killed it or the time limit it hit.
//!
//! Arguments longer than the kernel takes for one `exec` (128 KiB per argument, about
//! 2 MiB in all, shared with the environment) go through a response file (`@file`), which
//! clang and LLVM's tools read: a 200 KB `-D` option is a normal build.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// Default time limit of one compiler run.
const DEFAULT_TIMEOUT_S: u64 = 120;
/// Default address-space limit of one compiler run, in MiB.
const DEFAULT_MEMORY_MB: u64 = 4096;
/// Arguments totalling more than this many bytes go through a response file. Linux takes
/// 128 KiB per argument and about 2 MiB for all arguments and the environment together.
const MAX_INLINE_ARGS: usize = 32 * 1024;

/// How a compiler run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this status code.
    Exited(i32),
    /// It was killed by this signal (a crash, or the memory limit).
    Signalled(i32),
    /// It ran past the time limit and was killed.
    TimedOut(Duration),
}

/// A finished compiler run.
#[derive(Clone, Debug)]
pub struct ToolRun {
    pub ending: Ending,
    /// Its stderr, then its stdout, after a line saying how it ended unless it exited.
    pub log: String,
}

impl ToolRun {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.ending == Ending::Exited(0)
    }
}

/// A program could not be started (missing, not executable, or the scratch directory for
/// its response file could not be written).
#[derive(Debug)]
pub struct SpawnError(pub String);

fn env_u64(var: &str) -> Option<u64> {
    std::env::var(var).ok()?.trim().parse().ok()
}

/// The time limit of one run: `FERRITE_CLANG_TIMEOUT_S` seconds (at least 1), else 120 s.
pub fn timeout() -> Duration {
    Duration::from_secs(
        env_u64("FERRITE_CLANG_TIMEOUT_S")
            .unwrap_or(DEFAULT_TIMEOUT_S)
            .max(1),
    )
}

/// The address-space limit of one run in bytes: `FERRITE_CLANG_MEMORY_MB` MiB, else 4 GiB;
/// `None` when the variable is 0.
pub fn memory_limit() -> Option<u64> {
    let mb = env_u64("FERRITE_CLANG_MEMORY_MB").unwrap_or(DEFAULT_MEMORY_MB);
    (mb > 0).then(|| mb.saturating_mul(1 << 20))
}

/// A signal's name, for the log.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGPIPE => "SIGPIPE",
        _ => return format!("signal {sig}"),
    };
    format!("signal {sig} ({name})")
}

/// Quote one argument for a response file (GNU tokenisation, as clang reads it on Linux):
/// every character that would split or quote is escaped with a backslash.
fn quote_response_arg(arg: &str, out: &mut String) {
    for c in arg.chars() {
        if c.is_whitespace() || matches!(c, '\\' | '"' | '\'') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The arguments to pass: `args` themselves, or `@file` naming a response file written in
/// `scratch` when they are too long for `exec`.
fn command_line(program: &str, args: &[String], scratch: &Path) -> Result<Vec<String>, SpawnError> {
    let total: usize = args.iter().map(|a| a.len() + 1).sum();
    if total <= MAX_INLINE_ARGS {
        return Ok(args.to_vec());
    }
    let mut text = String::with_capacity(total + total / 8);
    for a in args {
        quote_response_arg(a, &mut text);
        text.push('\n');
    }
    let name = Path::new(program)
        .file_name()
        .map_or_else(|| "tool".into(), |n| n.to_string_lossy().into_owned());
    let path = scratch.join(format!("{name}.rsp"));
    std::fs::write(&path, text).map_err(|e| {
        SpawnError(format!(
            "cannot write the response file {}: {e}",
            path.display()
        ))
    })?;
    Ok(vec![format!("@{}", path.display())])
}

fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Kill the child's process group (the child and anything it started).
fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads
        // (it was started with `process_group(0)`); no memory is touched.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
}

/// Wait for the child; if it has not ended after `limit`, a watchdog kills its process
/// group and the result is `None`. The wait itself blocks (no polling), so a compiler
/// that takes 40 ms costs 40 ms.
fn wait_until(child: &mut Child, limit: Duration) -> std::io::Result<Option<ExitStatus>> {
    let pid = i32::try_from(child.id()).ok();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        match finished.recv_timeout(limit) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Some(pid) = pid {
                    // SAFETY: kill(2) with a negative pid signals the process group the
                    // child leads (started with `process_group(0)`), not yet reaped: the
                    // waiting thread has not reported the end; no memory is touched.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
                true
            }
            _ => false,
        }
    });
    let status = child.wait();
    let _ = done.send(());
    let killed = watchdog.join().unwrap_or(false);
    match status {
        Ok(_) if killed => Ok(None),
        Ok(s) => Ok(Some(s)),
        Err(e) => Err(e),
    }
}

/// Run `program` with `args` and `stdin` as its input, within the time and memory limits.
/// With `response_dir`, long argument lists go through a response file written there (for
/// programs that read `@file`: clang and LLVM's tools, not SPIRV-Tools).
pub fn run(
    program: &str,
    args: &[String],
    stdin: &[u8],
    response_dir: Option<&Path>,
) -> Result<ToolRun, SpawnError> {
    let argv = match response_dir {
        Some(dir) => command_line(program, args, dir)?,
        None => args.to_vec(),
    };
    let limit = timeout();
    let memory = memory_limit();
    let mut cmd = Command::new(program);
    cmd.args(&argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a time-out kills whatever it started too.
        .process_group(0);
    if let Some(bytes) = memory {
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // setrlimit(2), which is async-signal-safe; it allocates nothing and takes no lock.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| SpawnError(format!("cannot run {program}: {e}")))?;
    // Input and output on threads of their own: a compiler that writes a lot before it has
    // read all its input must not block on a full pipe while we block writing to it.
    let input = child.stdin.take().map(|mut pipe| {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            // A compiler that exits early closes its stdin; its diagnostics say why.
            let _ = pipe.write_all(&data);
        })
    });
    let stdout = child.stdout.take().map(read_all);
    let stderr = child.stderr.take().map(read_all);
    let waited = wait_until(&mut child, limit);
    let ending = match waited {
        Ok(Some(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(sig)) => Ending::Signalled(sig),
            (None, None) => Ending::Exited(-1),
        },
        // Killed by the watchdog, and already waited for.
        Ok(None) => Ending::TimedOut(limit),
        Err(_) => {
            kill_group(&mut child);
            let _ = child.wait();
            Ending::TimedOut(limit)
        }
    };
    if let Some(t) = input {
        let _ = t.join();
    }
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let out = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let mut log = String::new();
    match &ending {
        Ending::Exited(_) => {}
        Ending::Signalled(sig) => {
            log.push_str(&format!(
                "error: {program} died of {}: the compiler crashed",
                signal_name(*sig)
            ));
            if let Some(bytes) = memory {
                log.push_str(&format!(
                    " or ran out of the {} MiB of address space it may use \
                     (FERRITE_CLANG_MEMORY_MB changes the limit)",
                    bytes >> 20
                ));
            }
            log.push_str(if err.is_empty() && out.is_empty() {
                "; it wrote nothing\n"
            } else {
                "; its messages follow\n"
            });
        }
        Ending::TimedOut(d) => log.push_str(&format!(
            "error: {program} ran longer than {} s and was stopped \
             (FERRITE_CLANG_TIMEOUT_S changes the limit)\n",
            d.as_secs()
        )),
    }
    log.push_str(&String::from_utf8_lossy(&err));
    log.push_str(&String::from_utf8_lossy(&out));
    if let Ending::Exited(code) = ending {
        if code != 0 && log.trim().is_empty() {
            log = format!("error: {program} failed with exit status {code} and wrote nothing\n");
        }
    }
    Ok(ToolRun { ending, log })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_file_quoting() {
        let mut s = String::new();
        quote_response_arg("-DX=\"a b\"\\c'd", &mut s);
        assert_eq!(s, "-DX=\\\"a\\ b\\\"\\\\c\\'d");
    }

    #[test]
    fn reports_signals_and_exit_codes() {
        let sh =
            |script: &str| run("sh", &["-c".into(), script.into()], &[], None).expect("sh runs");
        let crashed = sh("kill -SEGV $$");
        assert_eq!(crashed.ending, Ending::Signalled(libc::SIGSEGV));
        assert!(crashed.log.contains("SIGSEGV"), "{}", crashed.log);
        let failed = sh("exit 3");
        assert_eq!(failed.ending, Ending::Exited(3));
        assert!(failed.log.contains("exit status 3"), "{}", failed.log);
        let ok = sh("echo hello");
        assert!(ok.success());
        assert_eq!(ok.log, "hello\n");
    }

    #[test]
    fn long_arguments_go_through_a_response_file() {
        let dir = std::env::temp_dir().join(format!("ferrite-tool-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let long = format!("-DBIG={}", "x".repeat(200_000));
        let argv = command_line("clang-15", &[long.clone(), "a b".into()], &dir)
            .expect("response file written");
        assert_eq!(argv.len(), 1);
        let file = argv[0].strip_prefix('@').expect("@file");
        let text = std::fs::read_to_string(file).expect("response file");
        assert_eq!(text, format!("{long}\na\\ b\n"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
