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
//!
//! `LinkOnceODR` (`cl_khr_spirv_linkonce_odr`): `spirv-link` (SPIRV-Tools 2023.1, measured)
//! accepts several modules defining the same `LinkOnceODR` function but does not let one
//! resolve another module's `Import` of it. So before linking, [`resolve_link_once`] makes
//! the first definition of each name an `Export` and drops the linkage of the later ones,
//! which stay as private copies in their modules (the one-definition rule says they are
//! the same function).

use std::path::Path;

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

const OP_DECORATE: u32 = 71;
const DECORATION_LINKAGE_ATTRIBUTES: u32 = 41;
const LINKAGE_EXPORT: u32 = 0;
const LINKAGE_LINK_ONCE_ODR: u32 = 2;

/// See the module documentation. Little-endian modules only (what every producer writes);
/// anything this pass cannot read is left as it is for `spirv-link` to judge.
fn resolve_link_once(modules: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut defined = std::collections::HashSet::new();
    modules
        .iter()
        .map(|m| {
            let words: Vec<u32> = m
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if m.len() % 4 != 0 || words.len() < 5 || words[0] != 0x0723_0203 {
                return m.clone();
            }
            let mut out = words[..5].to_vec();
            let mut i = 5;
            while i < words.len() {
                let count = (words[i] >> 16) as usize;
                if count == 0 || i + count > words.len() {
                    return m.clone();
                }
                let inst = &words[i..i + count];
                i += count;
                let linkage = inst[0] & 0xffff == OP_DECORATE
                    && count >= 5
                    && inst[2] == DECORATION_LINKAGE_ATTRIBUTES
                    && inst[count - 1] == LINKAGE_LINK_ONCE_ODR;
                if !linkage {
                    out.extend_from_slice(inst);
                    continue;
                }
                let name: Vec<u8> = inst[3..count - 1]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                if defined.insert(name) {
                    out.extend_from_slice(&inst[..count - 1]);
                    out.push(LINKAGE_EXPORT);
                }
                // A later definition: no linkage, a private copy.
            }
            out.iter().flat_map(|w| w.to_le_bytes()).collect()
        })
        .collect()
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
    let versioned: Vec<Vec<u8>> = modules.iter().map(|m| with_version(m, max)).collect();
    for (i, m) in resolve_link_once(&versioned).iter().enumerate() {
        let path = scratch.join(format!("in{i}.spv"));
        std::fs::write(&path, m).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        args.push(path.display().to_string());
    }
    let out_path = scratch.join("linked.spv");
    args.push("-o".into());
    args.push(out_path.display().to_string());
    // The same time and memory limits as the compiler's programs (`tool.rs`).
    let run = super::tool::run(&tool, &args, &[], None).map_err(|e| e.0)?;
    if !run.success() {
        return Err(run.log);
    }
    std::fs::read(&out_path).map_err(|e| format!("{tool} wrote no output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Vec<u8> {
        [0x0723_0203, 0x0001_0000, 0, 100, 0]
            .iter()
            .chain(body)
            .flat_map(|w| w.to_le_bytes())
            .collect()
    }

    /// `OpDecorate %id LinkageAttributes "a" <type>`.
    fn linkage(id: u32, ty: u32) -> [u32; 5] {
        [
            5 << 16 | OP_DECORATE,
            id,
            DECORATION_LINKAGE_ATTRIBUTES,
            u32::from(b'a'),
            ty,
        ]
    }

    #[test]
    fn first_link_once_definition_is_exported_later_ones_become_private() {
        let nop = [1u32 << 16];
        let a = module(&[&nop[..], &linkage(7, LINKAGE_LINK_ONCE_ODR)].concat());
        let b = module(&linkage(9, LINKAGE_LINK_ONCE_ODR));
        let import = module(&linkage(3, 1));
        let out = resolve_link_once(&[a, b, import.clone()]);
        assert_eq!(
            out[0],
            module(&[&nop[..], &linkage(7, LINKAGE_EXPORT)].concat())
        );
        assert_eq!(out[1], module(&[]));
        assert_eq!(out[2], import, "imports are untouched");
        // Garbage passes through for spirv-link to reject.
        let junk = vec![1u8, 2, 3];
        assert_eq!(resolve_link_once(std::slice::from_ref(&junk))[0], junk);
    }

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
