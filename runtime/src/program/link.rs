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
//!
//! Pointer types of imports (clang's own SPIR-V target): with LLVM's opaque pointers, clang
//! 20+ writes a declaration's pointer parameters as `uchar*` (nothing says what they point
//! to) while the definition in another module has the pointee its body uses (`float*`), and
//! `spirv-link` (SPIRV-Tools 2023.1; later ones have `--allow-pointer-mismatch`) refuses
//! the pair as a type mismatch. So [`match_import_types`] gives such an import the type of
//! its export when the two differ in pointees only: the export's types are made in the
//! importing module where missing, and the declaration's function and parameter types
//! point at them, and each call of it casts its pointer arguments (`OpBitcast`) to the
//! parameter types, so the linked module is well typed (the compiler takes an access
//! chain's element size from its base pointer's type).

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

const OP_TYPE_VOID: u32 = 19;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_TYPE_FUNCTION: u32 = 33;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_PARAMETER: u32 = 55;
const OP_FUNCTION_CALL: u32 = 57;
const OP_BITCAST: u32 = 124;
const OP_LABEL: u32 = 248;
const LINKAGE_IMPORT: u32 = 1;

/// What [`match_import_types`] reads of one module.
#[derive(Default)]
struct Linkage {
    /// Type id → its instruction's words (types this pass can copy only).
    types: std::collections::HashMap<u32, Vec<u32>>,
    /// Linkage name → (function id, is an export).
    symbols: std::collections::HashMap<Vec<u8>, (u32, bool)>,
    /// Function id → (word index of its `OpFunction`, its parameters' word indices, has a
    /// body).
    functions: std::collections::HashMap<u32, (usize, Vec<usize>, bool)>,
    /// Word index of the first `OpFunction`: where new types go.
    first_function: Option<usize>,
}

fn read_linkage(words: &[u32]) -> Option<Linkage> {
    let mut l = Linkage::default();
    let mut i = 5;
    let mut current: Option<u32> = None;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        if count == 0 || i + count > words.len() {
            return None;
        }
        let inst = &words[i..i + count];
        match inst[0] & 0xffff {
            OP_TYPE_VOID | OP_TYPE_BOOL | OP_TYPE_INT | OP_TYPE_FLOAT | OP_TYPE_VECTOR
            | OP_TYPE_STRUCT | OP_TYPE_POINTER | OP_TYPE_FUNCTION
                if count >= 2 =>
            {
                l.types.insert(inst[1], inst.to_vec());
            }
            OP_DECORATE if count >= 5 && inst[2] == DECORATION_LINKAGE_ATTRIBUTES => {
                let name: Vec<u8> = inst[3..count - 1]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                l.symbols
                    .insert(name, (inst[1], inst[count - 1] != LINKAGE_IMPORT));
            }
            OP_FUNCTION if count == 5 => {
                l.first_function.get_or_insert(i);
                l.functions.insert(inst[2], (i, Vec::new(), false));
                current = Some(inst[2]);
            }
            OP_FUNCTION_PARAMETER if count == 3 => {
                if let Some(f) = current.and_then(|c| l.functions.get_mut(&c)) {
                    f.1.push(i);
                }
            }
            OP_LABEL => {
                if let Some(f) = current.and_then(|c| l.functions.get_mut(&c)) {
                    f.2 = true;
                }
                current = None;
            }
            _ => {}
        }
        i += count;
    }
    Some(l)
}

/// The names a SPIR-V module imports and exports (`LinkageAttributes`), each sorted; empty
/// lists for bytes that are not a readable module.
pub fn linkage_symbols(spirv: &[u8]) -> (Vec<String>, Vec<String>) {
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let ok = spirv.len().is_multiple_of(4) && words.len() >= 5 && words[0] == 0x0723_0203;
    let Some(l) = ok.then(|| read_linkage(&words)).flatten() else {
        return (Vec::new(), Vec::new());
    };
    let (mut imports, mut exports) = (Vec::new(), Vec::new());
    for (name, &(_, export)) in &l.symbols {
        let name = String::from_utf8_lossy(name).into_owned();
        // llvm-spirv marks the built-in variables it declares (`__spirv_BuiltIn*`) as
        // imports; they are built-ins, which the compiler provides, not imports.
        if !export && name.starts_with("__spirv_BuiltIn") {
            continue;
        }
        if export {
            exports.push(name);
        } else {
            imports.push(name);
        }
    }
    imports.sort();
    exports.sort();
    (imports, exports)
}

/// A type's structure as text: `loose` writes every pointer's pointee as `?`.
fn type_key(
    types: &std::collections::HashMap<u32, Vec<u32>>,
    id: u32,
    loose: bool,
    depth: u32,
) -> Option<String> {
    let inst = types.get(&id)?;
    if depth > 16 {
        return None;
    }
    let sub = |t: u32| type_key(types, t, loose, depth + 1);
    Some(match inst[0] & 0xffff {
        OP_TYPE_VOID => "v".into(),
        OP_TYPE_BOOL => "b".into(),
        OP_TYPE_INT => format!("i{}", inst.get(2)?),
        OP_TYPE_FLOAT => format!("f{}", inst.get(2)?),
        OP_TYPE_VECTOR => format!("<{}x{}>", inst.get(3)?, sub(*inst.get(2)?)?),
        OP_TYPE_POINTER if loose => format!("p{}", inst.get(2)?),
        OP_TYPE_POINTER => format!("p{}({})", inst.get(2)?, sub(*inst.get(3)?)?),
        OP_TYPE_STRUCT | OP_TYPE_FUNCTION => {
            let parts: Option<Vec<String>> = inst[2..].iter().map(|t| sub(*t)).collect();
            let tag = if inst[0] & 0xffff == OP_TYPE_STRUCT {
                "s"
            } else {
                "fn"
            };
            format!("{tag}({})", parts?.join(","))
        }
        _ => return None,
    })
}

/// See the module documentation. Little-endian modules only; a module this pass cannot
/// read, or an import whose type differs in more than pointees, is left as it is for
/// `spirv-link` to judge.
fn match_import_types(modules: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let words: Vec<Vec<u32>> = modules
        .iter()
        .map(|m| {
            m.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect();
    let read: Vec<Option<Linkage>> = words
        .iter()
        .zip(&modules)
        .map(|(w, m)| {
            let ok = m.len() % 4 == 0 && w.len() >= 5 && w[0] == 0x0723_0203;
            ok.then(|| read_linkage(w)).flatten()
        })
        .collect();
    // Every export's function type: name → (module, type id).
    let mut exports = std::collections::HashMap::new();
    for (mi, l) in read.iter().enumerate() {
        let Some(l) = l else { continue };
        for (name, (f, export)) in &l.symbols {
            if let (true, Some(&(at, _, true))) = (*export, l.functions.get(f)) {
                exports.insert(name.clone(), (mi, words[mi][at + 4]));
            }
        }
    }
    let mut out = modules.clone();
    for (mi, l) in read.iter().enumerate() {
        let Some(l) = l else { continue };
        let mut w = words[mi].clone();
        let mut new_types: Vec<Vec<u32>> = Vec::new();
        let mut bound = w[3];
        // Structure → id of the types this module has (or is given).
        let mut have: std::collections::HashMap<String, u32> = l
            .types
            .keys()
            .filter_map(|&t| Some((type_key(&l.types, t, false, 0)?, t)))
            .collect();
        // Import id → (parameter index, its new type) for the parameters that changed.
        let mut casts: std::collections::HashMap<u32, Vec<(usize, u32)>> =
            std::collections::HashMap::new();
        for (name, (f, export)) in &l.symbols {
            let (Some(&(at, ref params, false)), false) = (l.functions.get(f), *export) else {
                continue;
            };
            let Some(&(em, ety)) = exports.get(name) else {
                continue;
            };
            let (Some(theirs), ours) = (read[em].as_ref(), w[at + 4]) else {
                continue;
            };
            let same_loose = type_key(&l.types, ours, true, 0)
                == type_key(&theirs.types, ety, true, 0)
                && type_key(&theirs.types, ety, true, 0).is_some();
            if !same_loose
                || type_key(&l.types, ours, false, 0) == type_key(&theirs.types, ety, false, 0)
            {
                continue;
            }
            // Only pointer parameters may differ (they get casts at the calls); a return
            // type or a pointer inside a struct would need more, so spirv-link judges.
            let (Some(our_fn), Some(their_fn)) = (l.types.get(&ours), theirs.types.get(&ety))
            else {
                continue;
            };
            let strict = |a: &Linkage, x: u32, b: &Linkage, y: u32| {
                type_key(&a.types, x, false, 0) == type_key(&b.types, y, false, 0)
            };
            let pointer = |t: &Linkage, x: u32| {
                t.types
                    .get(&x)
                    .is_some_and(|i| i[0] & 0xffff == OP_TYPE_POINTER)
            };
            let only_pointers = our_fn.len() == their_fn.len()
                && strict(l, our_fn[2], theirs, their_fn[2])
                && our_fn[3..].iter().zip(&their_fn[3..]).all(|(&a, &b)| {
                    strict(l, a, theirs, b) || (pointer(l, a) && pointer(theirs, b))
                });
            if !only_pointers {
                continue;
            }
            // Make (or find) the export's types here, components first.
            fn make(
                theirs: &std::collections::HashMap<u32, Vec<u32>>,
                id: u32,
                have: &mut std::collections::HashMap<String, u32>,
                new_types: &mut Vec<Vec<u32>>,
                bound: &mut u32,
            ) -> Option<u32> {
                let key = type_key(theirs, id, false, 0)?;
                if let Some(&t) = have.get(&key) {
                    return Some(t);
                }
                let mut inst = theirs.get(&id)?.clone();
                // The operands that are type ids: a vector's component, a pointer's
                // pointee, a struct's members, a function's return and parameters.
                let types = match inst[0] & 0xffff {
                    OP_TYPE_VECTOR => 2..3,
                    OP_TYPE_POINTER => 3..4,
                    OP_TYPE_STRUCT | OP_TYPE_FUNCTION => 2..inst.len(),
                    _ => 0..0,
                };
                for k in types {
                    inst[k] = make(theirs, inst[k], have, new_types, bound)?;
                }
                let made = *bound;
                inst[1] = made;
                *bound += 1;
                have.insert(key, made);
                new_types.push(inst);
                Some(made)
            }
            let Some(fn_ty) = make(&theirs.types, ety, &mut have, &mut new_types, &mut bound)
            else {
                continue;
            };
            let Some(fn_inst) = new_types
                .iter()
                .find(|t| t[1] == fn_ty)
                .cloned()
                .or_else(|| l.types.get(&fn_ty).cloned())
            else {
                continue;
            };
            if fn_inst.len() != 3 + params.len() {
                continue;
            }
            w[at + 4] = fn_ty;
            let mut changed = Vec::new();
            for (k, &p) in params.iter().enumerate() {
                if w[p + 1] != fn_inst[3 + k] {
                    changed.push((k, fn_inst[3 + k]));
                }
                w[p + 1] = fn_inst[3 + k];
            }
            casts.insert(*f, changed);
        }
        if casts.is_empty() {
            continue;
        }
        // The module again: the new types before the first function, a cast before each
        // argument a call of a changed import passes.
        let first = l.first_function.unwrap_or(w.len());
        let mut done = Vec::with_capacity(w.len() + 64);
        done.extend_from_slice(&w[..5]);
        let mut i = 5;
        while i < w.len() {
            if i == first {
                done.extend(new_types.concat());
            }
            let count = (w[i] >> 16) as usize;
            let mut inst = w[i..i + count].to_vec();
            if inst[0] & 0xffff == OP_FUNCTION_CALL && count >= 4 {
                for &(k, ty) in casts.get(&inst[3]).map_or(&[][..], |c| c.as_slice()) {
                    if let Some(arg) = inst.get_mut(4 + k) {
                        done.extend_from_slice(&[4 << 16 | OP_BITCAST, ty, bound, *arg]);
                        *arg = bound;
                        bound += 1;
                    }
                }
            }
            done.extend_from_slice(&inst);
            i += count;
        }
        if first >= w.len() {
            done.extend(new_types.concat());
        }
        done[3] = bound;
        out[mi] = done.iter().flat_map(|x| x.to_le_bytes()).collect();
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
    let versioned: Vec<Vec<u8>> = modules.iter().map(|m| with_version(m, max)).collect();
    for (i, m) in match_import_types(resolve_link_once(&versioned))
        .iter()
        .enumerate()
    {
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

    fn words(m: &[u8]) -> Vec<u32> {
        m.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// `OpDecorate %id LinkageAttributes "f" <type>`.
    fn linkage_f(id: u32, ty: u32) -> [u32; 5] {
        [
            5 << 16 | OP_DECORATE,
            id,
            DECORATION_LINKAGE_ATTRIBUTES,
            0x66,
            ty,
        ]
    }

    #[test]
    fn an_import_taking_uchar_pointers_gets_its_exports_pointer_types() {
        const VOID: u32 = 2 << 16 | OP_TYPE_VOID;
        const END: u32 = 1 << 16 | 56;
        // Module A, as clang-22 writes it: `f(uchar*)` imported, called by `k(uchar* p)`.
        let a = module(
            &[
                &linkage_f(5, LINKAGE_IMPORT)[..],
                &[VOID, 1],
                &[4 << 16 | OP_TYPE_INT, 2, 8, 0],
                &[4 << 16 | OP_TYPE_POINTER, 3, 5, 2],
                &[4 << 16 | OP_TYPE_FUNCTION, 4, 1, 3],
                &[5 << 16 | OP_FUNCTION, 1, 5, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 3, 6],
                &[END],
                &[5 << 16 | OP_FUNCTION, 1, 7, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 3, 10],
                &[2 << 16 | OP_LABEL, 11],
                &[5 << 16 | OP_FUNCTION_CALL, 1, 12, 5, 10],
                &[1 << 16 | 253, END],
            ]
            .concat(),
        );
        // Module B defines `f(float*)`.
        let b = module(
            &[
                &linkage_f(5, LINKAGE_EXPORT)[..],
                &[VOID, 1],
                &[3 << 16 | OP_TYPE_FLOAT, 2, 32],
                &[4 << 16 | OP_TYPE_POINTER, 3, 5, 2],
                &[4 << 16 | OP_TYPE_FUNCTION, 4, 1, 3],
                &[5 << 16 | OP_FUNCTION, 1, 5, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 3, 6],
                &[2 << 16 | OP_LABEL, 7],
                &[1 << 16 | 253, END],
            ]
            .concat(),
        );
        let out = match_import_types(vec![a, b.clone()]);
        assert_eq!(out[1], b, "the export is untouched");
        let mut want = module(
            &[
                &linkage_f(5, LINKAGE_IMPORT)[..],
                &[VOID, 1],
                &[4 << 16 | OP_TYPE_INT, 2, 8, 0],
                &[4 << 16 | OP_TYPE_POINTER, 3, 5, 2],
                &[4 << 16 | OP_TYPE_FUNCTION, 4, 1, 3],
                // float, float*, void(float*): the export's types, made here.
                &[3 << 16 | OP_TYPE_FLOAT, 100, 32],
                &[4 << 16 | OP_TYPE_POINTER, 101, 5, 100],
                &[4 << 16 | OP_TYPE_FUNCTION, 102, 1, 101],
                &[5 << 16 | OP_FUNCTION, 1, 5, 0, 102],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 101, 6],
                &[END],
                &[5 << 16 | OP_FUNCTION, 1, 7, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 3, 10],
                &[2 << 16 | OP_LABEL, 11],
                &[4 << 16 | OP_BITCAST, 101, 103, 10],
                &[5 << 16 | OP_FUNCTION_CALL, 1, 12, 5, 103],
                &[1 << 16 | 253, END],
            ]
            .concat(),
        );
        want[12..16].copy_from_slice(&104u32.to_le_bytes());
        assert_eq!(words(&out[0]), words(&want));
        // Types that differ in more than pointees are left for spirv-link to refuse.
        let c = module(
            &[
                &linkage_f(5, LINKAGE_EXPORT)[..],
                &[VOID, 1],
                &[3 << 16 | OP_TYPE_FLOAT, 2, 32],
                &[4 << 16 | OP_TYPE_FUNCTION, 4, 1, 2],
                &[5 << 16 | OP_FUNCTION, 1, 5, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 2, 6],
                &[2 << 16 | OP_LABEL, 7],
                &[1 << 16 | 253, END],
            ]
            .concat(),
        );
        let a = match_import_types(vec![out[0].clone(), b])[0].clone();
        assert_eq!(a, out[0], "an import that matches is left alone");
        let unchanged = module(&[&linkage_f(5, LINKAGE_IMPORT)[..], &[VOID, 1]].concat());
        let r = match_import_types(vec![unchanged.clone(), c]);
        assert_eq!(r[0], unchanged);
    }

    #[test]
    fn an_import_returning_another_pointer_type_is_left_for_spirv_link() {
        const VOID: u32 = 2 << 16 | OP_TYPE_VOID;
        const END: u32 = 1 << 16 | 56;
        // `uchar *f(uchar *)` imported, `float *f(float *)` exported: the calls' results
        // would keep the old type, so nothing is changed.
        let decl = |elem: &[u32], linkage: u32, body: bool| {
            let mut m = [
                &linkage_f(5, linkage)[..],
                &[VOID, 1],
                elem,
                &[4 << 16 | OP_TYPE_POINTER, 3, 5, 2],
                &[4 << 16 | OP_TYPE_FUNCTION, 4, 3, 3],
                &[5 << 16 | OP_FUNCTION, 3, 5, 0, 4],
                &[3 << 16 | OP_FUNCTION_PARAMETER, 3, 6],
            ]
            .concat();
            if body {
                m.extend([2 << 16 | OP_LABEL, 7, 2 << 16 | 254, 6]);
            }
            m.push(END);
            module(&m)
        };
        let a = decl(&[4 << 16 | OP_TYPE_INT, 2, 8, 0], LINKAGE_IMPORT, false);
        let b = decl(&[3 << 16 | OP_TYPE_FLOAT, 2, 32], LINKAGE_EXPORT, true);
        let out = match_import_types(vec![a.clone(), b.clone()]);
        assert_eq!(out, [a, b]);
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
