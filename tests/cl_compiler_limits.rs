//! The OpenCL C compiler's programs failing: a `clang` that crashes, one that runs past the
//! time limit, and the memory limit it runs under. Each build fails with
//! `CL_BUILD_PROGRAM_FAILURE` and a build log that says what happened, and the context
//! builds and runs a program afterwards.
//!
//! Ferrite only: the fake compilers are given through `FERRITE_CLANG`, with
//! `FERRITE_CLANG_TIMEOUT_S` and `FERRITE_CLANG_MEMORY_MB`. This binary holds one test, so
//! the environment it changes is seen by nothing else.

use ferrite_tests::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const SRC: &str = "kernel void add1(global int *a) { a[get_global_id(0)] += 1; }";

/// Writes an executable shell script `name` into `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("make the script executable");
    path
}

/// Builds `SRC` (made unique by `tag`, so no cached SPIR-V answers) and returns the failure.
fn failed_build(env: &Env, tag: &str) -> (cl_int, String) {
    let src = format!("// {tag}\n{SRC}");
    let p = Program::from_source(&env.ctx, &src);
    match p.build("") {
        Ok(()) => panic!("{tag}: the build succeeded"),
        Err(e) => e,
    }
}

#[test]
fn compiler_crash_time_and_memory_limits() {
    if !require(is_ferrite(), "FERRITE_CLANG and its limits are Ferrite's") {
        return;
    }
    let env = Env::new();
    let dir = temp_dir("fake-clang");

    // A compiler that dies of SIGSEGV: the log names the signal and keeps what it wrote.
    let crash = script(
        &dir,
        "crashing-clang",
        "echo 'fake clang: about to crash' >&2\nkill -SEGV $$",
    );
    std::env::set_var("FERRITE_CLANG", &crash);
    let (rc, log) = failed_build(&env, "crash");
    expect_code(rc, CL_BUILD_PROGRAM_FAILURE, "a build whose clang crashes");
    assert!(
        log.contains("SIGSEGV") && log.contains("crashing-clang"),
        "the log names the compiler and its signal:\n{log}"
    );
    assert!(
        log.contains("fake clang: about to crash"),
        "the log keeps the compiler's stderr:\n{log}"
    );

    // The memory limit: the compiler runs with RLIMIT_AS set (ulimit -v is in KiB).
    let limits = script(
        &dir,
        "limit-reporting-clang",
        "echo \"address space limit: $(ulimit -v) KiB\" >&2\nexit 1",
    );
    std::env::set_var("FERRITE_CLANG", &limits);
    std::env::set_var("FERRITE_CLANG_MEMORY_MB", "1024");
    let (rc, log) = failed_build(&env, "memory");
    expect_code(rc, CL_BUILD_PROGRAM_FAILURE, "a build whose clang exits 1");
    assert!(
        log.contains("address space limit: 1048576 KiB"),
        "clang runs under FERRITE_CLANG_MEMORY_MB=1024:\n{log}"
    );
    std::env::remove_var("FERRITE_CLANG_MEMORY_MB");
    let (_, log) = failed_build(&env, "default memory");
    assert!(
        log.contains("address space limit: 4194304 KiB"),
        "clang runs under the default 4 GiB limit:\n{log}"
    );

    // The time limit: a compiler that never finishes is stopped and the log says so.
    let hang = script(&dir, "hanging-clang", "exec sleep 600");
    std::env::set_var("FERRITE_CLANG", &hang);
    std::env::set_var("FERRITE_CLANG_TIMEOUT_S", "1");
    let (rc, log) = failed_build(&env, "timeout");
    expect_code(rc, CL_BUILD_PROGRAM_FAILURE, "a build whose clang hangs");
    assert!(
        log.contains("ran longer than 1 s") && log.contains("FERRITE_CLANG_TIMEOUT_S"),
        "the log says the compiler was stopped:\n{log}"
    );

    // The real compiler again: the context builds and runs a program.
    std::env::remove_var("FERRITE_CLANG");
    std::env::remove_var("FERRITE_CLANG_TIMEOUT_S");
    let p = env.build(SRC, "");
    let b = env.buffer_from(&[1i32, 2, 3]);
    let k = p.kernel("add1");
    k.buf(0, &b);
    run_1d(&env.queue, &k, 3, None);
    assert_eq!(b.read::<i32>(&env.queue, 3), vec![2, 3, 4]);
    let _ = std::fs::remove_dir_all(&dir);
}
