//! Test harness: OpenCL C → SPIR-V with clang-15 + llvm-spirv-15, `.spvasm` → SPIR-V with
//! spirv-as, argument blocks, and an NDRange runner that calls the work-group function for
//! every group the way the runtime's executor will.
#![allow(dead_code)]

use ferrite_compiler::{ArgKind, CompiledKernel, GroupContext, KernelInfo, Module, PrintfBuffer};
use std::cell::Cell;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The `printf` buffer launches on this thread hand to kernels (null: none).
    static PRINTF: Cell<*const PrintfBuffer> = const { Cell::new(std::ptr::null()) };
}

fn scratch(ext: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "ferrite-compiler-test-{}-{n}.{ext}",
        std::process::id()
    ))
}

fn tool(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn have(prog: &str) -> bool {
    Command::new(prog).arg("--version").output().is_ok()
}

/// Compile OpenCL C to SPIR-V; `None` (with a message) if the tools are missing.
pub fn cl_to_spirv(src: &str) -> Option<Vec<u8>> {
    cl_to_spirv_opt(src, "-O2")
}

/// Like [`cl_to_spirv`] with clang's optimisation flag (`-O0` keeps calls and private
/// variables in memory).
pub fn cl_to_spirv_opt(src: &str, opt: &str) -> Option<Vec<u8>> {
    cl_to_spirv_with(src, opt, &[], "")
}

/// Like [`cl_to_spirv_opt`] with extra clang arguments and extra llvm-spirv extensions
/// (`",+SPV_EXT_…"`).
pub fn cl_to_spirv_with(
    src: &str,
    opt: &str,
    clang_args: &[&str],
    spirv_exts: &str,
) -> Option<Vec<u8>> {
    let clang = tool("FERRITE_CLANG", "clang-15");
    let spirv = tool("FERRITE_LLVM_SPIRV", "llvm-spirv-15");
    if !have(&clang) || !have(&spirv) {
        eprintln!("skipping: {clang} / {spirv} not installed");
        return None;
    }
    let cl = scratch("cl");
    let bc = scratch("bc");
    let spv = scratch("spv");
    std::fs::write(&cl, src).expect("write .cl");
    let out = Command::new(&clang)
        .args([
            "-c",
            "-target",
            "spir64",
            "-cl-std=CL3.0",
            opt,
            "-cl-kernel-arg-info",
        ])
        .args(clang_args)
        .arg("-emit-llvm")
        .arg(&cl)
        .arg("-o")
        .arg(&bc)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "clang failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&spirv)
        .arg(format!(
            "--spirv-ext=+SPV_INTEL_arbitrary_precision_integers{spirv_exts}"
        ))
        .arg("--preserve-ocl-kernel-arg-type-metadata-through-string")
        .arg(&bc)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("run llvm-spirv");
    assert!(
        out.status.success(),
        "llvm-spirv failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).expect("read .spv");
    for f in [cl, bc, spv] {
        let _ = std::fs::remove_file(f);
    }
    Some(bytes)
}

/// Assemble SPIR-V text; `None` (with a message) if spirv-as is missing.
pub fn spvasm(src: &str) -> Option<Vec<u8>> {
    spvasm_for(src, "spv1.4")
}

/// [`spvasm`] for a target environment (`spv1.6`: the module's version word too).
pub fn spvasm_for(src: &str, target_env: &str) -> Option<Vec<u8>> {
    if Command::new("spirv-as").arg("--version").output().is_err() {
        eprintln!("skipping: spirv-as not installed");
        return None;
    }
    let asm = scratch("spvasm");
    let spv = scratch("spv");
    std::fs::write(&asm, src).expect("write .spvasm");
    let out = Command::new("spirv-as")
        .args(["--target-env", target_env])
        .arg(&asm)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("run spirv-as");
    assert!(
        out.status.success(),
        "spirv-as failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).expect("read .spv");
    let _ = std::fs::remove_file(asm);
    let _ = std::fs::remove_file(spv);
    Some(bytes)
}

/// Compile `src` and the kernel `name`; `None` if the tools are missing.
pub fn kernel(src: &str, name: &str) -> Option<CompiledKernel> {
    kernel_opt(src, name, "-O2")
}

/// Compile with extra clang arguments and llvm-spirv extensions.
pub fn kernel_with(
    src: &str,
    name: &str,
    clang_args: &[&str],
    spirv_exts: &str,
) -> Option<CompiledKernel> {
    let spv = cl_to_spirv_with(src, "-O2", clang_args, spirv_exts)?;
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("from_spirv: {e}"));
    Some(
        m.compile_kernel(name)
            .unwrap_or_else(|e| panic!("compile_kernel({name}): {e}")),
    )
}

/// Like [`kernel`] with clang's optimisation flag.
pub fn kernel_opt(src: &str, name: &str, opt: &str) -> Option<CompiledKernel> {
    let spv = cl_to_spirv_opt(src, opt)?;
    let m = Module::from_spirv(&spv).unwrap_or_else(|e| panic!("from_spirv: {e}"));
    Some(
        m.compile_kernel(name)
            .unwrap_or_else(|e| panic!("compile_kernel({name}): {e}")),
    )
}

/// An argument block for one launch.
pub struct Args {
    pub bytes: Vec<u64>,
    info: KernelInfo,
}

impl Args {
    pub fn new(info: &KernelInfo) -> Args {
        Args {
            bytes: vec![0; info.args_size.div_ceil(8).max(1)],
            info: info.clone(),
        }
    }

    fn raw(&mut self) -> &mut [u8] {
        let len = self.bytes.len() * 8;
        let ptr = self.bytes.as_mut_ptr().cast::<u8>();
        // SAFETY: `bytes` is a live Vec<u64> of `len / 8` elements; u8 has no alignment
        // or validity requirements, and the slice borrows `self` mutably.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }

    /// A buffer argument: the slot holds the slice's address.
    pub fn buf<T>(&mut self, i: usize, data: &mut [T]) -> &mut Self {
        assert!(matches!(self.info.args[i].kind, ArgKind::Buffer { .. }));
        let off = self.info.args[i].offset;
        let addr = data.as_mut_ptr() as u64;
        self.raw()[off..off + 8].copy_from_slice(&addr.to_ne_bytes());
        self
    }

    /// A by-value argument: its bytes.
    pub fn val<T: Copy>(&mut self, i: usize, v: T) -> &mut Self {
        let ArgKind::Value { size } = self.info.args[i].kind else {
            panic!("argument {i} is not a value");
        };
        assert_eq!(size, std::mem::size_of::<T>(), "size of argument {i}");
        let off = self.info.args[i].offset;
        let p = (&v as *const T).cast::<u8>();
        // SAFETY: `v` is a live `T`, readable as `size_of::<T>()` bytes (test values are
        // padding-free plain data).
        let bytes = unsafe { std::slice::from_raw_parts(p, size) };
        self.raw()[off..off + size].copy_from_slice(bytes);
        self
    }

    /// A `__local` argument: its byte offset in local memory.
    pub fn local(&mut self, i: usize, offset: u64) -> &mut Self {
        assert_eq!(self.info.args[i].kind, ArgKind::Local);
        let off = self.info.args[i].offset;
        self.raw()[off..off + 8].copy_from_slice(&offset.to_ne_bytes());
        self
    }
}

/// Run one work-group with its own local memory and frame arena.
#[allow(clippy::too_many_arguments)]
fn run_group(
    k: &CompiledKernel,
    args: &Args,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
    gid: [u64; 3],
    lmem: &mut [u64],
    frame: &mut [FrameBlock],
) {
    let groups: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
    let mut ls = [0; 3];
    for d in 0..3 {
        ls[d] = local[d].min(global[d] - gid[d] * local[d]);
    }
    let ctx = GroupContext {
        global_size: global,
        global_offset: offset,
        enqueued_local_size: local,
        local_size: ls,
        num_groups: [groups[0], groups[1], groups[2]],
        group_id: gid,
        work_dim: dim,
        local_mem: lmem.as_mut_ptr().cast(),
        frame: frame.as_mut_ptr().cast(),
        local_mem_size: (lmem.len() * 8) as u64,
        printf: PRINTF.with(Cell::get),
    };
    // SAFETY: the entry follows the work-group ABI; `args` was laid out from the kernel's
    // `KernelInfo` and its buffers outlive the call, `ctx`, the local memory and the frame
    // arena (`frame_size_per_item` × the enqueued group size, 128-byte aligned) live on the
    // caller's frame and belong to this call alone.
    unsafe { (k.entry())(args.bytes.as_ptr().cast(), &ctx) };
}

/// 128 bytes of frame arena, 128-byte aligned like the executor's frame arenas.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
pub struct FrameBlock([u8; 128]);

fn arenas(
    k: &CompiledKernel,
    local: [u64; 3],
    local_mem_bytes: usize,
) -> (Vec<u64>, Vec<FrameBlock>) {
    let lmem = vec![0u64; (k.static_local_size + local_mem_bytes).div_ceil(8).max(1)];
    let items = (local[0] * local[1] * local[2]) as usize;
    let frame = vec![FrameBlock([0; 128]); (k.frame_size_per_item * items).div_ceil(128).max(1)];
    (lmem, frame)
}

/// Run an NDRange: every group in order, `local_mem_bytes` of local memory per group.
pub fn run(
    k: &CompiledKernel,
    args: &Args,
    dim: u64,
    global: [u64; 3],
    local: [u64; 3],
    offset: [u64; 3],
    local_mem_bytes: usize,
) {
    let (mut lmem, mut frame) = arenas(k, local, local_mem_bytes);
    let groups: Vec<u64> = (0..3).map(|d| global[d].div_ceil(local[d])).collect();
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                run_group(
                    k,
                    args,
                    dim,
                    global,
                    local,
                    offset,
                    [gx, gy, gz],
                    &mut lmem,
                    &mut frame,
                );
            }
        }
    }
}

/// Run a 1-D NDRange with its groups spread over `threads` threads (groups taken from a
/// shared counter), each thread with its own local memory and frame arena, so global
/// atomics really race.
pub fn run_par(
    k: &CompiledKernel,
    args: &Args,
    global: u64,
    local: u64,
    local_mem_bytes: usize,
    threads: usize,
) {
    let groups = global.div_ceil(local);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let (mut lmem, mut frame) = arenas(k, [local, 1, 1], local_mem_bytes);
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if g >= groups {
                        break;
                    }
                    run_group(
                        k,
                        args,
                        1,
                        [global, 1, 1],
                        [local, 1, 1],
                        [0; 3],
                        [g, 0, 0],
                        &mut lmem,
                        &mut frame,
                    );
                }
            });
        }
    });
}

/// Run a 1-D NDRange of `groups` groups of `local` work-items, each group on its own
/// thread, all at once (litmus tests: groups that wait for each other must run
/// concurrently).
pub fn run_groups_concurrently(k: &CompiledKernel, args: &Args, groups: u64, local: u64) {
    std::thread::scope(|s| {
        for g in 0..groups {
            s.spawn(move || {
                let (mut lmem, mut frame) = arenas(k, [local, 1, 1], 0);
                run_group(
                    k,
                    args,
                    1,
                    [groups * local, 1, 1],
                    [local, 1, 1],
                    [0; 3],
                    [g, 0, 0],
                    &mut lmem,
                    &mut frame,
                );
            });
        }
    });
}

/// 1-D launch with `local_mem_bytes` of `__local` argument memory.
pub fn run1_local(
    k: &CompiledKernel,
    args: &Args,
    global: u64,
    local: u64,
    local_mem_bytes: usize,
) {
    run(
        k,
        args,
        1,
        [global, 1, 1],
        [local, 1, 1],
        [0; 3],
        local_mem_bytes,
    );
}

/// 1-D launch without offset.
pub fn run1(k: &CompiledKernel, args: &Args, global: u64, local: u64) {
    run(k, args, 1, [global, 1, 1], [local, 1, 1], [0; 3], 0);
}

/// 1-D launch (groups in order on this thread) that returns what the kernel printed.
pub fn run1_printf(k: &CompiledKernel, args: &Args, global: u64, local: u64) -> String {
    let buf = PrintfBuffer::new(1 << 20);
    PRINTF.with(|p| p.set(&buf));
    run1(k, args, global, local);
    PRINTF.with(|p| p.set(std::ptr::null()));
    String::from_utf8(buf.take_output()).expect("printf output is UTF-8")
}
