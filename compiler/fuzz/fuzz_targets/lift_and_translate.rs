//! Mutated SPIR-V must make the build fail cleanly: `Module::from_spirv` (lift +
//! validation) and `Module::compile_kernel` (translation to CLIF + Cranelift JIT) return
//! `Ok` or `Err(CompileError)`, never panic, abort, hang or blow up memory.
//!
//! libfuzzer-sys installs a panic hook that aborts, so a panic counts as a crash even
//! though `Module` wraps its work in `catch_unwind`: that net is for users, not for us.
//! Kernels are compiled, never run.

#![no_main]

use ferrite_compiler::{spec_constants, Module};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

/// Bigger inputs only slow the fuzzer down; real kernels in the seed corpus are < 10 KiB.
const MAX_INPUT: usize = 64 * 1024;
/// Kernels compiled per module (each is a full Cranelift JIT compile).
const MAX_KERNELS: usize = 8;

fn compile_all(m: &Module) {
    for k in m.kernels().iter().take(MAX_KERNELS) {
        // An error is fine; only a panic/abort/hang is a bug.
        let _ = m.compile_kernel(&k.name);
    }
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(m) = Module::from_spirv(data) {
        compile_all(&m);
    }
    // Specialization: a few values derived from the input for every SpecId it declares.
    let Ok(specs) = spec_constants(data) else {
        return;
    };
    if specs.is_empty() {
        return;
    }
    let h = fnv(data);
    for seed in [0, u64::MAX, h, h.rotate_left(17) & 0xff] {
        let values: HashMap<u32, u64> = specs
            .iter()
            .map(|s| (s.id, seed ^ u64::from(s.id).wrapping_mul(0x9e37_79b9)))
            .collect();
        if let Ok(m) = Module::from_spirv_with_spec_constants(data, &values) {
            compile_all(&m);
        }
    }
});
