//! Linking SPIR-V modules with the `spirv-link` program (SPIRV-Tools; `FERRITE_SPIRV_LINK`
//! overrides the path): like clang and llvm-spirv, a tool run as a process, never a library
//! in ours.
//!
//! Why `spirv-link` and not `llvm-link` on kept bitcode: every object Ferrite produces or
//! accepts is SPIR-V (`clCompileProgram` on IL, binaries), so SPIR-V is the one format that
//! links them all. Measured on llvm-spirv-15 output: `spirv-link` resolves
//! `LinkageAttributes` Import/Export pairs between modules and keeps the kernels' entry
//! points, but refuses modules of different SPIR-V versions (llvm-spirv picks the lowest
//! version each module needs: 1.0 for one, 1.4 for another). Versions only grow
//! compatibly for kernel modules, so every input's header is raised to the highest version
//! among them first.

use std::path::Path;
use std::process::Command;

/// The result of a link: the module or the linker's messages.
pub type LinkResult = std::result::Result<Vec<u8>, String>;

fn version(module: &[u8]) -> u32 {
    if module.len() < 8 {
        return 0;
    }
    let magic = u32::from_le_bytes([module[0], module[1], module[2], module[3]]);
    if magic == 0x0723_0203 {
        u32::from_le_bytes([module[4], module[5], module[6], module[7]])
    } else {
        u32::from_be_bytes([module[4], module[5], module[6], module[7]])
    }
}

fn with_version(module: &[u8], v: u32) -> Vec<u8> {
    let mut out = module.to_vec();
    if out.len() >= 8 {
        let little = u32::from_le_bytes([out[0], out[1], out[2], out[3]]) == 0x0723_0203;
        let bytes = if little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        };
        out[4..8].copy_from_slice(&bytes);
    }
    out
}

/// Link `modules` into one: a library (exports kept, imports may stay unresolved) or a
/// module for an executable (every import resolved). `Err` carries the log.
pub fn link(modules: &[&[u8]], library: bool, scratch: &Path) -> LinkResult {
    let tool = std::env::var("FERRITE_SPIRV_LINK")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "spirv-link".to_string());
    let max = modules.iter().map(|m| version(m)).max().unwrap_or(0);
    let mut args = Vec::new();
    if library {
        args.push("--create-library".to_string());
        args.push("--allow-partial-linkage".to_string());
    }
    for (i, m) in modules.iter().enumerate() {
        let path = scratch.join(format!("in{i}.spv"));
        std::fs::write(&path, with_version(m, max))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        args.push(path.display().to_string());
    }
    let out_path = scratch.join("linked.spv");
    args.push("-o".into());
    args.push(out_path.display().to_string());
    let out = Command::new(&tool)
        .args(&args)
        .output()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        if log.trim().is_empty() {
            log = format!("{tool} failed ({})", out.status);
        }
        return Err(log);
    }
    std::fs::read(&out_path).map_err(|e| format!("{tool} wrote no output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_patched_in_either_byte_order() {
        let mut le = vec![0u8; 20];
        le[..4].copy_from_slice(&0x0723_0203u32.to_le_bytes());
        le[4..8].copy_from_slice(&0x0001_0000u32.to_le_bytes());
        assert_eq!(version(&le), 0x0001_0000);
        assert_eq!(version(&with_version(&le, 0x0001_0400)), 0x0001_0400);
        let mut be = vec![0u8; 20];
        be[..4].copy_from_slice(&0x0723_0203u32.to_be_bytes());
        be[4..8].copy_from_slice(&0x0001_0200u32.to_be_bytes());
        assert_eq!(version(&be), 0x0001_0200);
        assert_eq!(version(&with_version(&be, 0x0001_0400)), 0x0001_0400);
    }
}
