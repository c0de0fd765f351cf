//! The typed tables the lifter builds: types, constants, module-scope variables, functions.

use crate::ir::Inst;
use rspirv::spirv::{AccessQualifier, BuiltIn, Dim, StorageClass, Word};

/// A SPIR-V type, with ids pointing back into [`super::Program::types`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Void,
    Bool,
    /// `width` is the real width (arbitrary-precision integers included).
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        elem: Word,
        count: u32,
    },
    Array {
        elem: Word,
        len: u64,
    },
    RuntimeArray {
        elem: Word,
    },
    Struct {
        members: Vec<Word>,
        packed: bool,
    },
    Pointer {
        class: StorageClass,
        pointee: Word,
    },
    Function {
        ret: Word,
        params: Vec<Word>,
    },
    /// `OpTypeImage`: an image argument, passed as the address of its descriptor
    /// (`builtins/image.rs`).
    Image(ImageType),
    /// `OpTypeSampler`: the sampler's bits (`builtins::image::sampler_bits`).
    Sampler,
    /// `OpTypeSampledImage`: an image and a sampler, a pair of values.
    SampledImage {
        image: Word,
    },
    /// Event, queue, pipe, …: nameable but not supported in code.
    Opaque(&'static str),
}

/// What `OpTypeImage` says of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageType {
    pub dim: Dim,
    /// A depth image (`image2d_depth_t`).
    pub depth: bool,
    pub arrayed: bool,
    /// `read_only`, `write_only`, `read_write`; `None` if not given.
    pub access: Option<AccessQualifier>,
}

/// A constant (module scope). Spec constants are folded to their value.
#[derive(Clone, Debug)]
pub enum Constant {
    /// The bit pattern, zero-extended (floats as their IEEE bits, bools 0/1).
    Scalar {
        ty: Word,
        bits: u64,
    },
    Composite {
        ty: Word,
        parts: Vec<Word>,
    },
    /// `OpConstantNull` and module-scope `OpUndef` (both read as zero).
    Null {
        ty: Word,
    },
    /// An address `offset` bytes from the module-scope variable `base`: what an
    /// `OpSpecConstantOp` over a variable folds to (`PtrAccessChain`, `Bitcast`,
    /// `PtrCastToGeneric`, `ConvertPtrToU`, …). `ty` is a pointer or, after
    /// `ConvertPtrToU`, an integer type. Where the variable lives is known only once the
    /// module's storage is laid out (`module.rs`) or the kernel runs (local memory).
    Address {
        ty: Word,
        base: Word,
        offset: i64,
    },
}

impl Constant {
    pub fn ty(&self) -> Word {
        match self {
            Constant::Scalar { ty, .. }
            | Constant::Composite { ty, .. }
            | Constant::Null { ty }
            | Constant::Address { ty, .. } => *ty,
        }
    }
}

/// A module-scope `OpVariable`.
#[derive(Clone, Debug)]
pub struct Global {
    /// The variable's (pointer) type.
    pub ptr_ty: Word,
    pub pointee: Word,
    pub class: StorageClass,
    pub init: Option<Word>,
    pub builtin: Option<BuiltIn>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub id: Word,
    pub ty: Word,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub label: Word,
    pub insts: Vec<Inst>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub id: Word,
    pub name: String,
    pub ret: Word,
    pub params: Vec<Param>,
    /// Empty for an imported declaration (`LinkageAttributes … Import`).
    pub blocks: Vec<Block>,
}

impl Function {
    /// The type of each value the function defines: its parameters and results.
    pub fn value_types(&self) -> std::collections::HashMap<Word, Word> {
        let params = self.params.iter().map(|p| (p.id, p.ty));
        let results = self
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| Some((i.result_id?, i.result_type?)));
        params.chain(results).collect()
    }
}

#[derive(Clone, Debug)]
pub struct EntryPoint {
    pub func: Word,
    pub name: String,
    pub local_size: Option<[u32; 3]>,
    pub local_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<u32>,
    /// `intel_reqd_sub_group_size` (`OpExecutionMode SubgroupSize`), if given.
    pub sub_group_size: Option<u32>,
}
