//! Lifting: rspirv's `dr::Module` → typed tables ([`Program`]).
//!
//! rspirv gives us parsed instructions but no id → definition map; this module builds one
//! per kind (types, constants, globals, functions, ext-inst imports) so every later lookup
//! is typed and fails with [`CompileError::InvalidId`] instead of panicking. Capabilities are
//! checked here against the list Ferrite implements. Structured control flow
//! (`OpSelectionMerge`/`OpLoopMerge`) is kept in the instruction lists but ignored later:
//! llvm-spirv's merge blocks are not always valid, and kernels do not need them.

mod any_all;
mod builtin_casts;
mod library;
mod spec;
mod types;
pub mod words;

pub use types::{Block, Constant, EntryPoint, Function, Global, ImageType, Param, Type};

use crate::ir::Inst;
use crate::CompileError;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{
    BuiltIn, Capability, Decoration, Dim, ExecutionMode, FunctionParameterAttribute, Op,
    StorageClass, Word,
};
use std::collections::HashMap;

pub type Result<T> = std::result::Result<T, CompileError>;

/// The lifted module.
#[derive(Debug, Default)]
pub struct Program {
    pub types: HashMap<Word, Type>,
    pub constants: HashMap<Word, Constant>,
    pub globals: HashMap<Word, Global>,
    /// Module-scope variables in declaration order.
    pub global_order: Vec<Word>,
    pub functions: HashMap<Word, Function>,
    pub ext_imports: HashMap<Word, String>,
    pub names: HashMap<Word, String>,
    pub decorations: crate::ir::Decorations,
    pub entry_points: Vec<EntryPoint>,
    /// `OpString` contents (llvm-spirv's kernel-arg-info strings live here).
    pub strings: Vec<String>,
    /// Scalar specialization constants in declaration order: id, default bits, type.
    pub spec_order: Vec<(Word, u64, Word)>,
}

// ---- operand helpers -------------------------------------------------------------------

/// Operand `i` of `inst` as an id.
pub fn op_id(inst: &Instruction, i: usize) -> Result<Word> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id)) => Ok(*id),
        _ => Err(operand_error(inst, i, "id")),
    }
}

fn operand_error(inst: &Instruction, index: usize, want: &'static str) -> CompileError {
    CompileError::Operand {
        op: inst.class.opcode,
        index,
        want,
    }
}

/// Operand `i` of `inst` as a 32-bit literal.
pub fn op_lit(inst: &Instruction, i: usize) -> Result<u32> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(x) | Operand::LiteralExtInstInteger(x)) => Ok(*x),
        Some(Operand::LiteralBit64(x)) => {
            u32::try_from(*x).map_err(|_| operand_error(inst, i, "32-bit literal"))
        }
        _ => Err(operand_error(inst, i, "literal")),
    }
}

/// Operand `i` of `inst` as a string.
pub fn op_str(inst: &Instruction, i: usize) -> Result<&str> {
    match inst.operands.get(i) {
        Some(Operand::LiteralString(s)) => Ok(s),
        _ => Err(operand_error(inst, i, "string")),
    }
}

pub fn result_id(inst: &Instruction) -> Result<Word> {
    inst.result_id.ok_or(CompileError::MissingResult {
        op: inst.class.opcode,
        what: "id",
    })
}

pub fn result_type(inst: &Instruction) -> Result<Word> {
    inst.result_type.ok_or(CompileError::MissingResult {
        op: inst.class.opcode,
        what: "type",
    })
}

/// The extended instruction sets kernels may import (`cl_khr_spirv_queries`
/// `CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR`).
pub const EXTENDED_INSTRUCTION_SETS: &[&str] = &["OpenCL.std"];

/// The SPIR-V extensions whose instructions, decorations and capabilities Ferrite
/// implements (`CL_DEVICE_SPIRV_EXTENSIONS_KHR`). `OpExtension` itself is not checked (a
/// module declaring another one fails on what it uses, if anything); this list is what
/// the device promises, and covers the extension every capability of
/// [`supported_capabilities`] that is not core SPIR-V 1.0–1.6 depends on.
pub const SPIRV_EXTENSIONS: &[&str] = &[
    "SPV_KHR_no_integer_wrap_decoration",
    "SPV_KHR_expect_assume",
    "SPV_KHR_linkonce_odr",
    "SPV_KHR_integer_dot_product",
    "SPV_KHR_bit_instructions",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_uniform_group_instructions",
    "SPV_KHR_vulkan_memory_model",
    "SPV_KHR_shader_clock",
    "SPV_EXT_shader_atomic_float_add",
    "SPV_EXT_shader_atomic_float16_add",
    "SPV_EXT_shader_atomic_float_min_max",
    "SPV_INTEL_subgroups",
    "SPV_INTEL_arbitrary_precision_integers",
    "SPV_INTEL_memory_access_aliasing",
    "SPV_INTEL_fp_fast_math_mode",
];

/// Every capability [`capability_supported`] accepts, as numbers, in increasing order
/// (`CL_DEVICE_SPIRV_CAPABILITIES_KHR`): read from the one predicate the lifter checks,
/// so the query cannot drift from what is compiled. Less [`UNREPORTED_CAPABILITIES`].
pub fn supported_capabilities() -> Vec<u32> {
    (0..=u32::from(u16::MAX))
        .filter(|&n| Capability::from_u32(n).is_some_and(capability_supported))
        .filter(|&n| !UNREPORTED_CAPABILITIES.iter().any(|c| *c as u32 == n))
        .collect()
}

/// Capabilities modules may declare that the query does not report: each needs an
/// extension [`SPIRV_EXTENSIONS`] does not claim, and `cl_khr_spirv_queries` requires
/// every reported capability's extension to be reported (CTS `api`
/// `spirv_query_dependencies`). `FunctionPointersINTEL`: `OpFunctionPointerCallINTEL`
/// on pointers from `zeModuleGetFunctionPointer` works, but
/// `OpConstantFunctionPointerINTEL`, the rest of `SPV_INTEL_function_pointers`, does not.
const UNREPORTED_CAPABILITIES: [Capability; 1] = [Capability::FunctionPointersINTEL];

/// Capabilities whose features Ferrite implements (or that only permit types/instructions
/// which are rejected individually when used).
fn capability_supported(c: Capability) -> bool {
    matches!(
        c,
        Capability::Addresses
            | Capability::Linkage
            | Capability::Kernel
            | Capability::Vector16
            | Capability::Float16Buffer
            // `half` arithmetic (`codegen/half.rs`).
            | Capability::Float16
            | Capability::Int8
            | Capability::Int16
            | Capability::Int64
            | Capability::Float64
            | Capability::GenericPointer
            | Capability::Int64Atomics
            | Capability::Groups
            | Capability::GroupNonUniform
            | Capability::GroupNonUniformVote
            | Capability::GroupNonUniformArithmetic
            | Capability::GroupNonUniformBallot
            | Capability::GroupNonUniformShuffle
            | Capability::GroupNonUniformShuffleRelative
            | Capability::GroupNonUniformClustered
            | Capability::GroupNonUniformRotateKHR
            // `OpReadClockKHR` (`codegen/clock.rs`).
            | Capability::ShaderClockKHR
            // The `SubgroupSize` execution mode (checked against ours); its opcodes
            // (`OpGetKernel*SubGroup*`, device-side enqueue) are rejected one by one.
            | Capability::SubgroupDispatch
            | Capability::SubgroupShuffleINTEL
            | Capability::SubgroupBufferBlockIOINTEL
            | Capability::AtomicFloat32AddEXT
            | Capability::AtomicFloat64AddEXT
            | Capability::AtomicFloat32MinMaxEXT
            | Capability::AtomicFloat64MinMaxEXT
            // Atomics of halves (`codegen/atomic.rs`).
            | Capability::AtomicFloat16AddEXT
            | Capability::AtomicFloat16MinMaxEXT
            | Capability::ArbitraryPrecisionIntegersINTEL
            // `OpFunctionPointerCallINTEL` (`codegen/control.rs`) with pointers from
            // `zeModuleGetFunctionPointer`; `OpConstantFunctionPointerINTEL` is refused.
            | Capability::FunctionPointersINTEL
            // The Vulkan memory model (`OpMemoryModel … VulkanKHR`, core in SPIR-V 1.5):
            // its availability/visibility bits and `NonPrivatePointer` accesses need no
            // instruction of their own on a CPU (see `memory_model.rs`).
            | Capability::VulkanMemoryModel
            | Capability::VulkanMemoryModelDeviceScope
            | Capability::ExpectAssumeKHR
            // SPIR-V 1.6: `Uniform`/`UniformId` on any value, a promise Ferrite has no use
            // for (it does not vectorise by divergence analysis).
            | Capability::UniformDecoration
            | Capability::BitInstructions
            | Capability::DotProduct
            | Capability::DotProductInputAll
            | Capability::DotProductInput4x8Bit
            | Capability::DotProductInput4x8BitPacked
            // `SPV_INTEL_memory_access_aliasing`: no-alias promises, which Ferrite does
            // not use (their declarations are dropped by `words.rs`).
            | Capability::MemoryAccessAliasingINTEL
            // `SPV_KHR_uniform_group_instructions`: work- and sub-group multiplication and
            // bitwise reductions and scans (`codegen/regions.rs`).
            | Capability::GroupUniformArithmeticKHR
            // `SPV_INTEL_fp_fast_math_mode`: the contraction/reassociation bits of the
            // `FPFastMathMode` decoration, permissions Ferrite does not use.
            | Capability::FPFastMathModeINTEL
            // Images and samplers (`codegen/image.rs`, `builtins/image.rs`).
            | Capability::ImageBasic
            | Capability::ImageReadWrite
            | Capability::LiteralSampler
            | Capability::Sampled1D
            | Capability::Image1D
            | Capability::SampledBuffer
            | Capability::ImageBuffer
    )
}

impl Program {
    /// Parse `bytes` and lift them. `spec` maps `SpecId` → value bits.
    pub fn parse(bytes: &[u8], spec: &HashMap<u32, u64>) -> Result<Program> {
        let prepared = words::prepare(bytes)?;
        let module = rspirv::dr::load_words(&prepared.words)
            .map_err(|e| CompileError::Malformed(format!("{e}")))?;
        let mut p = Program::default();

        if let Some(mm) = &module.memory_model {
            if let Some(Operand::AddressingModel(am)) = mm.operands.first() {
                if *am != rspirv::spirv::AddressingModel::Physical64 {
                    return Err(CompileError::Unsupported(format!(
                        "addressing model {am:?} (only Physical64)"
                    )));
                }
            }
        }
        for inst in &module.capabilities {
            match inst.operands.first() {
                Some(Operand::Capability(c)) if capability_supported(*c) => {}
                Some(Operand::Capability(c)) => {
                    return Err(CompileError::UnsupportedCapability(format!("{c:?}")))
                }
                _ => return Err(CompileError::Invalid("OpCapability without operand".into())),
            }
        }
        for inst in &module.ext_inst_imports {
            p.ext_imports
                .insert(result_id(inst)?, op_str(inst, 0)?.to_string());
        }
        for inst in &module.debug_names {
            if inst.class.opcode == Op::Name {
                p.names
                    .insert(op_id(inst, 0)?, op_str(inst, 1)?.to_string());
            }
        }
        for inst in &module.debug_string_source {
            if inst.class.opcode == Op::String {
                p.strings.push(op_str(inst, 0)?.to_string());
            }
        }
        p.lift_decorations(&module.annotations)?;
        for inst in &module.types_global_values {
            match inst.result_id.and_then(|id| prepared.spec_ops.get(&id)) {
                Some(raw) if inst.class.opcode == Op::Undef => {
                    p.fold_raw_spec_op(result_id(inst)?, raw)?
                }
                _ => p.lift_global_inst(inst, &prepared.int_widths, spec)?,
            }
        }
        for f in &module.functions {
            p.lift_function(f)?;
        }
        let bound = module.header.as_ref().map_or(0, |h| h.bound);
        let next = p.copy_byval_params(bound)?;
        let next = p.lower_builtin_casts(next)?;
        p.resolve_imports()?;
        let next = p.lower_library_calls(next);
        p.lower_integer_any_all(next);
        p.lift_entry_points(&module.entry_points, &module.execution_modes)?;
        Ok(p)
    }

    fn lift_decorations(&mut self, annotations: &[Instruction]) -> Result<()> {
        let mut groups: Vec<(Word, Vec<Word>)> = Vec::new();
        for inst in annotations {
            match inst.class.opcode {
                Op::Decorate | Op::DecorateId => {
                    let target = op_id(inst, 0)?;
                    let Some(Operand::Decoration(d)) = inst.operands.get(1) else {
                        return Err(CompileError::Invalid(
                            "OpDecorate without decoration".into(),
                        ));
                    };
                    self.decorations
                        .entry(target)
                        .or_default()
                        .push((*d, inst.operands[2..].to_vec()));
                }
                Op::GroupDecorate => {
                    let group = op_id(inst, 0)?;
                    let mut targets = Vec::new();
                    for i in 1..inst.operands.len() {
                        targets.push(op_id(inst, i)?);
                    }
                    groups.push((group, targets));
                }
                // Member decorations (Offset, …) are not needed: layouts are computed.
                _ => {}
            }
        }
        for (group, targets) in groups {
            let decs = self.decorations.get(&group).cloned().unwrap_or_default();
            for t in targets {
                self.decorations
                    .entry(t)
                    .or_default()
                    .extend(decs.iter().cloned());
            }
        }
        Ok(())
    }

    fn lift_global_inst(
        &mut self,
        inst: &Instruction,
        widths: &HashMap<u32, u32>,
        spec: &HashMap<u32, u64>,
    ) -> Result<()> {
        let op = inst.class.opcode;
        match op {
            Op::TypeVoid => self.add_type(inst, Type::Void),
            Op::TypeBool => self.add_type(inst, Type::Bool),
            Op::TypeInt => {
                let id = result_id(inst)?;
                let width = widths.get(&id).copied().unwrap_or(op_lit(inst, 0)?);
                let signed = op_lit(inst, 1)? != 0;
                self.add_type(inst, Type::Int { width, signed })
            }
            Op::TypeFloat => {
                let width = op_lit(inst, 0)?;
                if !matches!(width, 16 | 32 | 64) {
                    return Err(CompileError::Unsupported(format!("{width}-bit float type")));
                }
                self.add_type(inst, Type::Float { width })
            }
            Op::TypeVector => {
                let elem = op_id(inst, 0)?;
                let count = op_lit(inst, 1)?;
                let scalar = self.scalar_type(elem)?;
                // clang-22's own SPIR-V target types some vector parameters as pointers to
                // one-element vectors (`global char2 *` as `v1uchar*`, which it then reads
                // through casts): invalid SPIR-V, read as the element type it holds.
                if count == 1 {
                    return self.add_type(inst, scalar);
                }
                // clang-22's own SPIR-V target also writes vectors of 5, 6, 7 and 9 to 15
                // components (what LLVM's shuffles leave of OpenCL C's `shuffle` and
                // swizzles): invalid SPIR-V without SPV_INTEL_vector_compute, accepted.
                if !(2..=16).contains(&count) {
                    return Err(CompileError::Invalid(format!("vector of {count} elements")));
                }
                self.add_type(inst, Type::Vector { elem, count })
            }
            Op::TypeArray => {
                let elem = op_id(inst, 0)?;
                self.ty(elem)?;
                let len_id = op_id(inst, 1)?;
                let len = self.const_u64(len_id)?;
                self.add_type(inst, Type::Array { elem, len })
            }
            Op::TypeRuntimeArray => {
                let elem = op_id(inst, 0)?;
                self.add_type(inst, Type::RuntimeArray { elem })
            }
            Op::TypeStruct => {
                let mut members = Vec::new();
                for i in 0..inst.operands.len() {
                    members.push(op_id(inst, i)?);
                }
                let packed = self.has_decoration(result_id(inst)?, Decoration::CPacked);
                self.add_type(inst, Type::Struct { members, packed })
            }
            Op::TypePointer => {
                let Some(Operand::StorageClass(class)) = inst.operands.first() else {
                    return Err(CompileError::Invalid("OpTypePointer without class".into()));
                };
                let pointee = op_id(inst, 1)?;
                self.add_type(
                    inst,
                    Type::Pointer {
                        class: *class,
                        pointee,
                    },
                )
            }
            Op::TypeForwardPointer => Ok(()),
            Op::TypeFunction => {
                let ret = op_id(inst, 0)?;
                let mut params = Vec::new();
                for i in 1..inst.operands.len() {
                    params.push(op_id(inst, i)?);
                }
                self.add_type(inst, Type::Function { ret, params })
            }
            Op::TypeOpaque => self.add_type(inst, Type::Opaque("opaque struct")),
            Op::TypeEvent => self.add_type(inst, Type::Opaque("event_t")),
            Op::TypeDeviceEvent => self.add_type(inst, Type::Opaque("clk_event_t")),
            Op::TypeReserveId => self.add_type(inst, Type::Opaque("reserve_id_t")),
            Op::TypeQueue => self.add_type(inst, Type::Opaque("queue_t")),
            Op::TypePipe => self.add_type(inst, Type::Opaque("pipe")),
            Op::TypeSampler => self.add_type(inst, Type::Sampler),
            Op::TypeSampledImage => {
                let image = op_id(inst, 0)?;
                self.add_type(inst, Type::SampledImage { image })
            }
            Op::TypeImage => {
                // Sampled Type, Dim, Depth, Arrayed, MS, Sampled, Image Format, [Access].
                let dim = match inst.operands.get(1) {
                    Some(Operand::Dim(d)) => *d,
                    _ => return Err(CompileError::Invalid("OpTypeImage without Dim".into())),
                };
                if !matches!(dim, Dim::Dim1D | Dim::Dim2D | Dim::Dim3D | Dim::DimBuffer) {
                    return Err(CompileError::Unsupported(format!("images of Dim {dim:?}")));
                }
                if op_lit(inst, 4)? != 0 {
                    return Err(CompileError::Unsupported("multisampled images".into()));
                }
                let access = match inst.operands.get(7) {
                    Some(Operand::AccessQualifier(a)) => Some(*a),
                    _ => None,
                };
                self.add_type(
                    inst,
                    Type::Image(ImageType {
                        dim,
                        depth: op_lit(inst, 2)? == 1,
                        arrayed: op_lit(inst, 3)? == 1,
                        access,
                    }),
                )
            }
            Op::ConstantSampler => {
                // Addressing mode, normalised (literal 0/1), filter mode.
                let ty = result_type(inst)?;
                let addressing = match inst.operands.first() {
                    Some(Operand::SamplerAddressingMode(a)) => *a as u32,
                    _ => return Err(CompileError::Invalid("OpConstantSampler operands".into())),
                };
                let normalized = op_lit(inst, 1)? != 0;
                let linear = matches!(
                    inst.operands.get(2),
                    Some(Operand::SamplerFilterMode(
                        rspirv::spirv::SamplerFilterMode::Linear
                    ))
                );
                let bits = crate::builtins::image::sampler_bits(normalized, addressing, linear);
                self.add_const(inst, Constant::Scalar { ty, bits })
            }
            Op::Constant | Op::SpecConstant => {
                let ty = result_type(inst)?;
                let bits = match inst.operands.first() {
                    Some(Operand::LiteralBit32(x)) => u64::from(*x),
                    Some(Operand::LiteralBit64(x)) => *x,
                    _ => return Err(CompileError::Invalid("OpConstant without value".into())),
                };
                let mut bits = match self.scalar_type(ty)? {
                    Type::Int { width, .. } if width < 64 => bits & ((1u64 << width) - 1),
                    _ => bits,
                };
                if op == Op::SpecConstant {
                    self.spec_order.push((result_id(inst)?, bits, ty));
                    if let Some(v) = self.spec_value(result_id(inst)?, spec) {
                        bits = match self.scalar_type(ty)? {
                            Type::Int { width, .. } if width < 64 => v & ((1u64 << width) - 1),
                            Type::Float { width: 32 } => v & 0xffff_ffff,
                            Type::Float { width: 16 } => v & 0xffff,
                            _ => v,
                        };
                    }
                }
                self.add_const(inst, Constant::Scalar { ty, bits })
            }
            Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                let ty = result_type(inst)?;
                let mut bits = u64::from(matches!(op, Op::ConstantTrue | Op::SpecConstantTrue));
                if matches!(op, Op::SpecConstantTrue | Op::SpecConstantFalse) {
                    self.spec_order.push((result_id(inst)?, bits, ty));
                    if let Some(v) = self.spec_value(result_id(inst)?, spec) {
                        bits = u64::from(v != 0);
                    }
                }
                self.add_const(inst, Constant::Scalar { ty, bits })
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let ty = result_type(inst)?;
                let mut parts = Vec::new();
                for i in 0..inst.operands.len() {
                    let part = op_id(inst, i)?;
                    // A part may be a module-scope variable: its address (llvm-spirv's
                    // `{ &a, 7 }`).
                    if !self.constants.contains_key(&part) && !self.globals.contains_key(&part) {
                        return Err(CompileError::InvalidId {
                            id: part,
                            expected: "constant",
                        });
                    }
                    parts.push(part);
                }
                self.add_const(inst, Constant::Composite { ty, parts })
            }
            Op::ConstantNull | Op::Undef => {
                let ty = result_type(inst)?;
                self.ty(ty)?;
                self.add_const(inst, Constant::Null { ty })
            }
            Op::Variable => {
                let id = result_id(inst)?;
                let ptr_ty = result_type(inst)?;
                let (class, pointee) = self.pointer_type(ptr_ty)?;
                let init = match inst.operands.get(1) {
                    Some(Operand::IdRef(i)) => {
                        // A constant, or another variable (`global int *p = &a;`), defined
                        // before this one.
                        if !self.constants.contains_key(i) && !self.globals.contains_key(i) {
                            return Err(CompileError::InvalidId {
                                id: *i,
                                expected: "constant or variable initialiser",
                            });
                        }
                        Some(*i)
                    }
                    _ => None,
                };
                let builtin = self.decorations.get(&id).and_then(|d| {
                    d.iter().find_map(|(dec, ops)| match (dec, ops.first()) {
                        (Decoration::BuiltIn, Some(Operand::BuiltIn(b))) => Some(*b),
                        _ => None,
                    })
                });
                self.globals.insert(
                    id,
                    Global {
                        ptr_ty,
                        pointee,
                        class,
                        init,
                        builtin,
                    },
                );
                self.global_order.push(id);
                Ok(())
            }
            Op::SpecConstantOp => self.fold_spec_op(inst),
            Op::Line | Op::NoLine | Op::ExtInst => Ok(()),
            _ => Err(CompileError::UnsupportedOpcode {
                opcode: format!("{:?}", inst.class.opcode),
                function: "(module scope)".into(),
            }),
        }
    }

    fn spec_value(&self, id: Word, spec: &HashMap<u32, u64>) -> Option<u64> {
        let decs = self.decorations.get(&id)?;
        decs.iter().find_map(|(d, ops)| match (d, ops.first()) {
            (Decoration::SpecId, Some(Operand::LiteralBit32(sid))) => spec.get(sid).copied(),
            _ => None,
        })
    }

    fn add_type(&mut self, inst: &Instruction, t: Type) -> Result<()> {
        self.types.insert(result_id(inst)?, t);
        Ok(())
    }

    fn add_const(&mut self, inst: &Instruction, c: Constant) -> Result<()> {
        self.constants.insert(result_id(inst)?, c);
        Ok(())
    }

    fn lift_function(&mut self, f: &rspirv::dr::Function) -> Result<()> {
        let def = f
            .def
            .as_ref()
            .ok_or_else(|| CompileError::Invalid("function without OpFunction".into()))?;
        let id = result_id(def)?;
        let ret = result_type(def)?;
        let mut params = Vec::new();
        for p in &f.parameters {
            params.push(Param {
                id: result_id(p)?,
                ty: result_type(p)?,
            });
        }
        let mut blocks = Vec::new();
        for b in &f.blocks {
            let label = b
                .label
                .as_ref()
                .and_then(|l| l.result_id)
                .ok_or_else(|| CompileError::Invalid("block without OpLabel".into()))?;
            let insts = b
                .instructions
                .iter()
                .map(|i| Inst::decode(i.clone(), &self.decorations))
                .collect::<Result<Vec<_>>>()?;
            blocks.push(Block { label, insts });
        }
        let name = self
            .names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("%{id}"));
        self.functions.insert(
            id,
            Function {
                id,
                name,
                ret,
                params,
                blocks,
            },
        );
        Ok(())
    }

    fn lift_entry_points(&mut self, eps: &[Instruction], modes: &[Instruction]) -> Result<()> {
        for ep in eps {
            match ep.operands.first() {
                Some(Operand::ExecutionModel(rspirv::spirv::ExecutionModel::Kernel)) => {}
                Some(Operand::ExecutionModel(m)) => {
                    return Err(CompileError::Unsupported(format!("execution model {m:?}")))
                }
                _ => return Err(CompileError::Invalid("OpEntryPoint without model".into())),
            }
            let func = op_id(ep, 1)?;
            let name = op_str(ep, 2)?.to_string();
            self.function(func)?;
            let mut e = EntryPoint {
                func,
                name,
                local_size: None,
                local_size_hint: None,
                vec_type_hint: None,
                sub_group_size: None,
            };
            for m in modes {
                if op_id(m, 0)? != func {
                    continue;
                }
                let three = |m: &Instruction| -> Result<[u32; 3]> {
                    Ok([op_lit(m, 2)?, op_lit(m, 3)?, op_lit(m, 4)?])
                };
                match m.operands.get(1) {
                    Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                        e.local_size = Some(three(m)?)
                    }
                    Some(Operand::ExecutionMode(ExecutionMode::LocalSizeHint)) => {
                        e.local_size_hint = Some(three(m)?)
                    }
                    Some(Operand::ExecutionMode(ExecutionMode::VecTypeHint)) => {
                        e.vec_type_hint = Some(op_lit(m, 2)?)
                    }
                    // `intel_reqd_sub_group_size`: one of the sizes Ferrite offers.
                    Some(Operand::ExecutionMode(ExecutionMode::SubgroupSize)) => {
                        let n = op_lit(m, 2)?;
                        if !crate::SUB_GROUP_SIZES.contains(&n) {
                            return Err(CompileError::Unsupported(format!(
                                "kernel {} requires a sub-group size of {n}; Ferrite's \
                                 sub-groups have {:?} work-items",
                                e.name,
                                crate::SUB_GROUP_SIZES
                            )));
                        }
                        e.sub_group_size = Some(n);
                    }
                    Some(Operand::ExecutionMode(
                        mode @ (ExecutionMode::SubgroupsPerWorkgroup
                        | ExecutionMode::SubgroupsPerWorkgroupId),
                    )) => {
                        return Err(CompileError::Unsupported(format!(
                            "execution mode {mode:?} of kernel {}",
                            e.name
                        )));
                    }
                    _ => {}
                }
            }
            self.entry_points.push(e);
        }
        Ok(())
    }

    /// Give every function its own copy of each struct passed by value
    /// (`FuncParamAttr ByVal`): the parameter becomes a fresh id and the old id a
    /// `Function` variable initialised from it (`OpCopyMemory`). For a kernel the pointer
    /// points into the launch's shared argument block, which a kernel writing to its copy
    /// must not change under the other work-items.
    /// Returns the first id still unused.
    fn copy_byval_params(&mut self, bound: Word) -> Result<Word> {
        let mut next = bound.max(1);
        let ids: Vec<Word> = self.functions.keys().copied().collect();
        for fid in ids {
            let Some(f) = self.functions.get(&fid) else {
                continue;
            };
            if f.blocks.is_empty() {
                continue;
            }
            let mut prologue = Vec::new();
            let mut renames = Vec::new();
            for (i, prm) in f.params.iter().enumerate() {
                let Ok(Type::Pointer { class, .. }) = self.ty(prm.ty) else {
                    continue;
                };
                if *class != StorageClass::Function
                    || !self.func_param_attr(prm.id, FunctionParameterAttribute::ByVal)
                {
                    continue;
                }
                let fresh = next;
                next = next
                    .checked_add(1)
                    .ok_or_else(|| CompileError::Invalid("id bound overflow".into()))?;
                prologue.push(Inst::new(
                    Op::Variable,
                    Some(prm.ty),
                    Some(prm.id),
                    vec![Operand::StorageClass(StorageClass::Function)],
                ));
                prologue.push(Inst::new(
                    Op::CopyMemory,
                    None,
                    None,
                    vec![Operand::IdRef(prm.id), Operand::IdRef(fresh)],
                ));
                renames.push((i, prm.id, fresh));
            }
            if renames.is_empty() {
                continue;
            }
            for (_, old, fresh) in &renames {
                if let Some(d) = self.decorations.get(old).cloned() {
                    self.decorations.insert(*fresh, d);
                }
                if let Some(n) = self.names.get(old).cloned() {
                    self.names.insert(*fresh, n);
                }
            }
            if let Some(f) = self.functions.get_mut(&fid) {
                for (i, _, fresh) in renames {
                    f.params[i].id = fresh;
                }
                if let Some(first) = f.blocks.first_mut() {
                    prologue.append(&mut first.insts);
                    first.insts = prologue;
                }
            }
        }
        Ok(next)
    }

    /// `Linkage`: a function declared `LinkageAttributes "name" Import` is resolved to the
    /// function of this module exported under that name; an import with no export stays
    /// bodiless and is reported ("unresolved import") when a kernel calls it.
    fn resolve_imports(&mut self) -> Result<()> {
        let linkage = |p: &Program, id: Word| -> Option<(String, rspirv::spirv::LinkageType)> {
            p.decorations
                .get(&id)?
                .iter()
                .find_map(|(d, ops)| match (d, ops.as_slice()) {
                    (
                        Decoration::LinkageAttributes,
                        [Operand::LiteralString(n), Operand::LinkageType(t), ..],
                    ) => Some((n.clone(), *t)),
                    _ => None,
                })
        };
        let mut exports = HashMap::new();
        for (id, f) in &self.functions {
            if let Some((n, rspirv::spirv::LinkageType::Export)) = linkage(self, *id) {
                if !f.blocks.is_empty() {
                    exports.insert(n, *id);
                }
            }
        }
        let imports: Vec<(Word, String)> = self
            .functions
            .iter()
            .filter(|(_, f)| f.blocks.is_empty())
            .filter_map(|(id, _)| match linkage(self, *id) {
                Some((n, rspirv::spirv::LinkageType::Import)) => Some((*id, n)),
                _ => None,
            })
            .collect();
        for (id, name) in imports {
            if let Some(e) = exports.get(&name) {
                let mut body = self.function(*e)?.clone();
                let Some(imp) = self.functions.get(&id) else {
                    continue;
                };
                if imp.params.len() != body.params.len() {
                    return Err(CompileError::Invalid(format!(
                        "import {name} does not match its export"
                    )));
                }
                body.id = id;
                self.functions.insert(id, body);
            } else if let Some(f) = self.functions.get_mut(&id) {
                f.name = format!("{name} (unresolved import)");
            }
        }
        Ok(())
    }

    /// The `LinkageAttributes` name of `id`, if it has one.
    pub fn linkage_name(&self, id: Word) -> Option<String> {
        self.decorations
            .get(&id)?
            .iter()
            .find_map(|(d, ops)| match (d, ops.first()) {
                (Decoration::LinkageAttributes, Some(Operand::LiteralString(n))) => Some(n.clone()),
                _ => None,
            })
    }

    // ---- typed lookups -----------------------------------------------------------------

    /// The id of type `want` (the lowest, where the module declares it more than once), or
    /// a new one from `fresh`, declared, for a rewrite that needs a type the module lacks.
    pub(crate) fn type_id_or_add(&mut self, want: Type, fresh: impl FnOnce() -> Word) -> Word {
        let existing = self
            .types
            .iter()
            .filter(|(_, t)| **t == want)
            .map(|(id, _)| *id)
            .min();
        existing.unwrap_or_else(|| {
            let id = fresh();
            self.types.insert(id, want);
            id
        })
    }

    pub fn ty(&self, id: Word) -> Result<&Type> {
        self.types.get(&id).ok_or(CompileError::InvalidId {
            id,
            expected: "type",
        })
    }

    /// A bool, integer or float type.
    pub fn scalar_type(&self, id: Word) -> Result<Type> {
        match self.ty(id)? {
            t @ (Type::Bool | Type::Int { .. } | Type::Float { .. }) => Ok(t.clone()),
            _ => Err(CompileError::InvalidId {
                id,
                expected: "scalar type",
            }),
        }
    }

    pub fn pointer_type(&self, id: Word) -> Result<(StorageClass, Word)> {
        match self.ty(id)? {
            Type::Pointer { class, pointee } => Ok((*class, *pointee)),
            _ => Err(CompileError::InvalidId {
                id,
                expected: "pointer type",
            }),
        }
    }

    pub fn function(&self, id: Word) -> Result<&Function> {
        self.functions.get(&id).ok_or(CompileError::InvalidId {
            id,
            expected: "function",
        })
    }

    pub fn constant(&self, id: Word) -> Result<&Constant> {
        self.constants.get(&id).ok_or(CompileError::InvalidId {
            id,
            expected: "constant",
        })
    }

    /// Add to `out` the module-scope variables constant `id` takes the address of.
    pub fn const_refs(&self, id: Word, out: &mut std::collections::HashSet<Word>, depth: u32) {
        if depth > 64 {
            return;
        }
        match self.constants.get(&id) {
            Some(Constant::Address { base, .. }) => {
                out.insert(*base);
            }
            Some(Constant::Composite { parts, .. }) => {
                for part in parts {
                    if self.globals.contains_key(part) {
                        out.insert(*part);
                    } else {
                        self.const_refs(*part, out, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// An integer constant's value, zero-extended.
    pub fn const_u64(&self, id: Word) -> Result<u64> {
        match self.constant(id)? {
            Constant::Scalar { bits, .. } => Ok(*bits),
            Constant::Null { .. } => Ok(0),
            _ => Err(CompileError::InvalidId {
                id,
                expected: "scalar constant",
            }),
        }
    }

    pub fn has_decoration(&self, id: Word, d: Decoration) -> bool {
        self.decorations
            .get(&id)
            .is_some_and(|v| v.iter().any(|(x, _)| *x == d))
    }

    pub fn func_param_attr(&self, id: Word, a: FunctionParameterAttribute) -> bool {
        self.decorations.get(&id).is_some_and(|v| {
            v.iter().any(|(d, ops)| {
                *d == Decoration::FuncParamAttr
                    && matches!(ops.first(), Some(Operand::FunctionParameterAttribute(x)) if *x == a)
            })
        })
    }

    pub fn builtin_of(&self, id: Word) -> Option<BuiltIn> {
        self.globals.get(&id).and_then(|g| g.builtin)
    }
}

#[cfg(test)]
mod query_tests {
    use super::*;

    /// `cl_khr_spirv_queries`: what OpenCL 3.0 requires of every SPIR-V device is listed,
    /// and each capability that needs a SPIR-V extension (not a core version) has it.
    #[test]
    fn queries_cover_the_requirements_and_their_extensions() {
        let caps = supported_capabilities();
        assert!(
            caps.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        for c in [
            Capability::Addresses,
            Capability::Float16Buffer,
            Capability::Float16,
            Capability::Int16,
            Capability::Int8,
            Capability::Kernel,
            Capability::Linkage,
            Capability::Vector16,
            Capability::Int64,
            Capability::GenericPointer,
            Capability::Groups,
            Capability::UniformDecoration,
        ] {
            assert!(caps.contains(&(c as u32)), "{c:?} missing");
        }
        let needs = [
            (Capability::SubgroupShuffleINTEL, "SPV_INTEL_subgroups"),
            (
                Capability::SubgroupBufferBlockIOINTEL,
                "SPV_INTEL_subgroups",
            ),
            (
                Capability::AtomicFloat32AddEXT,
                "SPV_EXT_shader_atomic_float_add",
            ),
            (
                Capability::AtomicFloat32MinMaxEXT,
                "SPV_EXT_shader_atomic_float_min_max",
            ),
            (
                Capability::AtomicFloat16AddEXT,
                "SPV_EXT_shader_atomic_float16_add",
            ),
            (
                Capability::AtomicFloat16MinMaxEXT,
                "SPV_EXT_shader_atomic_float_min_max",
            ),
            (
                Capability::GroupNonUniformRotateKHR,
                "SPV_KHR_subgroup_rotate",
            ),
            (Capability::BitInstructions, "SPV_KHR_bit_instructions"),
            (Capability::ShaderClockKHR, "SPV_KHR_shader_clock"),
            (Capability::ExpectAssumeKHR, "SPV_KHR_expect_assume"),
            (
                Capability::GroupUniformArithmeticKHR,
                "SPV_KHR_uniform_group_instructions",
            ),
            (
                Capability::MemoryAccessAliasingINTEL,
                "SPV_INTEL_memory_access_aliasing",
            ),
            (
                Capability::FPFastMathModeINTEL,
                "SPV_INTEL_fp_fast_math_mode",
            ),
            (
                Capability::ArbitraryPrecisionIntegersINTEL,
                "SPV_INTEL_arbitrary_precision_integers",
            ),
        ];
        for (c, ext) in needs {
            if caps.contains(&(c as u32)) {
                assert!(SPIRV_EXTENSIONS.contains(&ext), "{c:?} needs {ext}");
            }
        }
        assert_eq!(EXTENDED_INSTRUCTION_SETS, ["OpenCL.std"]);
    }
}
