//! Level-Zero modules: a SPIR-V module compiled once, with every kernel compiled at build
//! time so that whatever Ferrite cannot compile lands in the build log of
//! `zeModuleCreate`, not in a later `zeKernelCreate` (a small kernel compiles in well under
//! a millisecond, so building all of them up front costs little).
//!
//! Specialisation constants: Level-Zero passes each value as a pointer to memory of the
//! constant's own type, so [`spec_constant_sizes`] reads the sizes out of the SPIR-V
//! before the front end dereferences anything.

use crate::error::Error;
use ferrite_compiler::{CompileError, CompiledKernel, FunctionPointer, GlobalVariable, Module};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A built module.
pub struct ZeModule {
    kernels: Vec<CompiledKernel>,
    /// The compiled module: its program-scope variables, for `zeModuleGetGlobalPointer`.
    module: Module,
    /// Warnings of a successful build (empty when there were none).
    pub build_log: String,
    /// What it was built from, for [`ZeModule::native_binary`].
    spirv: Vec<u8>,
    spec_constants: HashMap<u32, u64>,
    /// Functions compiled for `zeModuleGetFunctionPointer`, by name: compiled on first
    /// request, the same address after.
    function_pointers: Mutex<HashMap<String, FunctionPointer>>,
}

/// Ferrite's "native binary": what a module was built from, so that building it again
/// gives the same module (`zeModuleGetNativeBinary`, `ZE_MODULE_FORMAT_NATIVE`). Machine
/// code is not kept: compiling again takes milliseconds, and the JIT places code at
/// run-time addresses. Layout (little-endian): the magic, a format version (u32), the
/// number of specialisation constants (u32), that many (SpecId u32, value u64), then the
/// SPIR-V.
const NATIVE_MAGIC: &[u8; 8] = b"FERRITE\0";
const NATIVE_VERSION: u32 = 1;

/// A failed build: the error and the log to hand to the application.
#[derive(Debug)]
pub struct BuildFailed {
    pub error: Error,
    pub log: String,
}

impl ZeModule {
    /// Build `spirv` with `spec_constants` (`SpecId` → value bits, zero-extended).
    /// `options` are the application's build flags; none change code generation yet, and
    /// each is listed in the build log.
    pub fn build(
        spirv: &[u8],
        spec_constants: &HashMap<u32, u64>,
        options: &str,
    ) -> Result<ZeModule, BuildFailed> {
        let mut log = String::new();
        for opt in options.split_whitespace() {
            let _ = writeln!(log, "note: build option {opt} ignored");
        }
        let fail = |log: &mut String, what: &str, e: &dyn std::fmt::Display| BuildFailed {
            error: Error::BuildFailure,
            log: {
                let _ = writeln!(log, "error: {what}{e}");
                std::mem::take(log)
            },
        };
        let module = Module::from_spirv_with_spec_constants(spirv, spec_constants)
            .map_err(|e| fail(&mut log, "", &e))?;
        let mut kernels = Vec::with_capacity(module.kernels().len());
        for info in module.kernels() {
            let k = module
                .compile_kernel(&info.name)
                .map_err(|e| fail(&mut log, &format!("kernel {}: ", info.name), &e))?;
            kernels.push(k);
        }
        Ok(ZeModule {
            kernels,
            module,
            build_log: log,
            spirv: spirv.to_vec(),
            spec_constants: spec_constants.clone(),
            function_pointers: Mutex::new(HashMap::new()),
        })
    }

    /// `zeModuleGetGlobalPointer`: the program-scope variable exported (or named) `name`,
    /// in the storage every kernel of the module uses.
    pub fn global_variable(&self, name: &str) -> Option<GlobalVariable> {
        self.module.global_variable(name)
    }

    /// `zeModuleGetFunctionPointer`: the address of the function exported (or named)
    /// `name`, which kernels call through `OpFunctionPointerCallINTEL`; `Ok(None)` when
    /// the module has none; `Err` with why when the function cannot be called that way
    /// (`compiler::pipeline::compile_function`). The code lives as long as the module.
    pub fn function_pointer(&self, name: &str) -> Result<Option<u64>, CompileError> {
        let mut fps = self.function_pointers.lock();
        if let Some(fp) = fps.get(name) {
            return Ok(Some(fp.addr));
        }
        let fp = self.module.function_pointer(name)?;
        Ok(fp.map(|fp| {
            let addr = fp.addr;
            fps.insert(name.to_string(), fp);
            addr
        }))
    }

    /// `zeModuleGetNativeBinary`.
    pub fn native_binary(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + 12 * self.spec_constants.len() + self.spirv.len());
        out.extend_from_slice(NATIVE_MAGIC);
        out.extend_from_slice(&NATIVE_VERSION.to_le_bytes());
        out.extend_from_slice(&(self.spec_constants.len() as u32).to_le_bytes());
        let mut spec: Vec<_> = self.spec_constants.iter().collect();
        spec.sort();
        for (id, value) in spec {
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.spirv);
        out
    }

    /// Split a native binary into its SPIR-V and specialisation constants.
    pub fn parse_native(bytes: &[u8]) -> Result<(&[u8], HashMap<u32, u64>), Error> {
        let bad = |why: &str| Error::InvalidBinary(format!("not a Ferrite binary: {why}"));
        let rest = bytes
            .strip_prefix(NATIVE_MAGIC.as_slice())
            .ok_or_else(|| bad("no magic"))?;
        let word = |b: &[u8], at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
        };
        if word(rest, 0) != Some(NATIVE_VERSION) {
            return Err(bad("unknown version"));
        }
        let n = word(rest, 4).ok_or_else(|| bad("truncated"))? as usize;
        let mut spec = HashMap::new();
        let mut at = 8;
        for _ in 0..n {
            let rec = rest.get(at..at + 12).ok_or_else(|| bad("truncated"))?;
            let id = u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]);
            let mut v = [0u8; 8];
            v.copy_from_slice(&rec[4..12]);
            spec.insert(id, u64::from_le_bytes(v));
            at += 12;
        }
        Ok((&rest[at..], spec))
    }

    /// Kernel names in `OpEntryPoint` order.
    /// The names the module imports and exports (`zeModuleInspectLinkageExt`).
    pub fn linkage(&self) -> (Vec<String>, Vec<String>) {
        crate::program::link::linkage_symbols(&self.spirv)
    }

    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.kernels.iter().map(|k| k.info.name.as_str())
    }

    /// The compiled kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&CompiledKernel> {
        self.kernels.iter().find(|k| k.info.name == name)
    }
}

/// The type of one specialisation constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecConstantType {
    /// Bytes of its value: the width of its scalar type, 1 for `bool`.
    pub size: usize,
    /// A `bool` (its byte is read as false for 0, true otherwise).
    pub is_bool: bool,
}

/// The type of every specialisation constant of a SPIR-V module, by `SpecId`. Constants
/// that are not scalars, and malformed input, are left out (the compiler reports the
/// module's problems).
pub fn spec_constant_sizes(spirv: &[u8]) -> HashMap<u32, SpecConstantType> {
    const OP_TYPE_BOOL: u32 = 20;
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    const OP_SPEC_CONSTANT_TRUE: u32 = 48;
    const OP_SPEC_CONSTANT_FALSE: u32 = 49;
    const OP_SPEC_CONSTANT: u32 = 50;
    const OP_DECORATE: u32 = 71;
    const DECORATION_SPEC_ID: u32 = 1;
    const MAGIC: u32 = 0x0723_0203;

    let mut out = HashMap::new();
    if spirv.len() < 20 || !spirv.len().is_multiple_of(4) {
        return out;
    }
    let le: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let words: Vec<u32> = match le[0] {
        MAGIC => le,
        m if m.swap_bytes() == MAGIC => le.into_iter().map(u32::swap_bytes).collect(),
        _ => return out,
    };
    let mut type_size: HashMap<u32, SpecConstantType> = HashMap::new();
    let mut spec_id: HashMap<u32, u32> = HashMap::new(); // result id -> SpecId
    let mut const_type: HashMap<u32, u32> = HashMap::new(); // result id -> type id
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            break;
        }
        let w = &words[i..i + count];
        match op {
            OP_TYPE_BOOL if count >= 2 => {
                type_size.insert(
                    w[1],
                    SpecConstantType {
                        size: 1,
                        is_bool: true,
                    },
                );
            }
            OP_TYPE_INT | OP_TYPE_FLOAT if count >= 3 => {
                type_size.insert(
                    w[1],
                    SpecConstantType {
                        size: (w[2] as usize).div_ceil(8),
                        is_bool: false,
                    },
                );
            }
            OP_DECORATE if count >= 4 && w[2] == DECORATION_SPEC_ID => {
                spec_id.insert(w[1], w[3]);
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT if count >= 3 => {
                const_type.insert(w[2], w[1]);
            }
            _ => {}
        }
        i += count;
    }
    for (id, sid) in spec_id {
        if let Some(ty) = const_type.get(&id).and_then(|t| type_size.get(t)) {
            out.insert(sid, *ty);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_binaries_round_trip_and_reject_garbage() {
        // The smallest module: the header, `OpCapability Kernel`, `OpMemoryModel`.
        let words: [u32; 10] = [
            0x0723_0203,
            0x0001_0000,
            0,
            1,
            0,
            (2 << 16) | 17,
            6,
            (3 << 16) | 14,
            2,
            2,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let m = ZeModule {
            kernels: Vec::new(),
            module: Module::from_spirv(&bytes).unwrap(),
            build_log: String::new(),
            spirv: vec![1, 2, 3, 4],
            spec_constants: HashMap::from([(7, 0x1_0000_0002), (1, 5)]),
            function_pointers: Mutex::new(HashMap::new()),
        };
        let bin = m.native_binary();
        let (spirv, spec) = ZeModule::parse_native(&bin).unwrap();
        assert_eq!(spirv, &[1, 2, 3, 4]);
        assert_eq!(spec, m.spec_constants);
        assert!(ZeModule::parse_native(&bin[..bin.len() - 4]).is_ok_and(|(s, _)| s.is_empty()));
        assert!(ZeModule::parse_native(&bin[..bin.len() - 5]).is_err());
        assert!(ZeModule::parse_native(&bin[..20]).is_err());
        assert!(ZeModule::parse_native(b"FERRITE").is_err());
        assert!(ZeModule::parse_native(&[0u8; 64]).is_err());
    }

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | op];
        v.extend_from_slice(operands);
        v
    }

    #[test]
    fn spec_constant_sizes_come_from_their_types() {
        let mut w = vec![0x0723_0203, 0x0001_0400, 0, 100, 0];
        w.extend(inst(71, &[10, 1, 5])); // OpDecorate %10 SpecId 5
        w.extend(inst(71, &[11, 1, 6])); // OpDecorate %11 SpecId 6
        w.extend(inst(71, &[12, 1, 7])); // OpDecorate %12 SpecId 7
        w.extend(inst(20, &[1])); // %1 = OpTypeBool
        w.extend(inst(21, &[2, 16, 0])); // %2 = OpTypeInt 16 0
        w.extend(inst(22, &[3, 64])); // %3 = OpTypeFloat 64
        w.extend(inst(48, &[1, 10])); // %10 = OpSpecConstantTrue %1
        w.extend(inst(50, &[2, 11, 3])); // %11 = OpSpecConstant %2 3
        w.extend(inst(50, &[3, 12, 0, 0])); // %12 = OpSpecConstant %3 0.0
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        let sizes = spec_constant_sizes(&bytes);
        let ty = |size, is_bool| Some(SpecConstantType { size, is_bool });
        assert_eq!(sizes.get(&5).copied(), ty(1, true));
        assert_eq!(sizes.get(&6).copied(), ty(2, false));
        assert_eq!(sizes.get(&7).copied(), ty(8, false));
        assert_eq!(sizes.len(), 3);
        assert!(spec_constant_sizes(&bytes[..7]).is_empty());
        assert!(spec_constant_sizes(&[0u8; 24]).is_empty());
    }
}
