//! Ferrite's kernel compiler: SPIR-V (OpenCL `Kernel` environment) → Cranelift → native code.
//!
//! Pipeline (`pipeline.rs` runs the steps in order; see `docs/architecture.md`):
//! 1. `spirv`: load the words with rspirv's `dr` loader and lift them into typed tables
//!    (types, constants, globals, functions, decorations, names); every function-body
//!    instruction is decoded once (`ir`), with the decorations that change it folded in.
//!    Anything we do not support is rejected here with an error naming the opcode or
//!    capability.
//! 2. `workgroup/regions.rs` + `analysis`: kernels with barriers are split at them; the
//!    analyses (CFG, loops, uniformity) decide how the vectoriser takes each kernel.
//! 3. `codegen` + `workgroup`: translate every function into Cranelift IR; each kernel
//!    entry point becomes a *work-group function* that loops over the work-items of one
//!    group, vectorised across them where the kernel allows.
//! 4. `jit`: finalise the Cranelift functions into executable memory.
//!
//! The public surface is deliberately small: [`Module::from_spirv`] parses and validates,
//! [`Module::kernels`] describes the kernels (names, arguments) for the runtime's
//! `clGetKernelInfo`/`clSetKernelArg`, and [`Module::compile_kernel`] produces a
//! [`CompiledKernel`] the runtime's executor calls once per work-group.
//!
//! # The work-group function ABI
//! ```text
//! extern "C" fn(args: *const u8, ctx: *const GroupContext)
//! ```
//! `args` is the kernel's argument block laid out by [`KernelInfo::args`] (`offset`
//! of each [`KernelArg`]); `ctx` describes the NDRange and the group being run. The function
//! runs every work-item of the group (`ctx.local_size`, which is smaller than the enqueued
//! size in a non-uniform last group) and returns. A kernel with barriers or work-group
//! collectives also needs `ctx.frame`: [`CompiledKernel::frame_size_per_item`] bytes for
//! each work-item of the enqueued work-group size.

#![deny(unsafe_code)]

mod analysis;
mod builtins;
#[expect(
    unsafe_code,
    reason = "checked mode's hooks read the group context and work-item record JIT code passes"
)]
pub mod check;
mod codegen;
pub mod error;
mod ir;
#[expect(
    unsafe_code,
    reason = "the JIT is the one place that turns code into fn pointers"
)]
mod jit;
mod layout;
pub mod memory_model;
mod pipeline;
#[expect(
    unsafe_code,
    reason = "printf reads the records, format strings and %s strings JIT code points at, \
              and formats with the C library's snprintf"
)]
pub mod printf;
pub mod spaces;
mod spirv;
mod workgroup;

pub use builtins::image;
pub use error::CompileError;
pub use printf::PrintfBuffer;
pub use spirv::{supported_capabilities, EXTENDED_INSTRUCTION_SETS, SPIRV_EXTENSIONS};

/// The sub-group sizes a kernel can have (`CL_DEVICE_SUB_GROUP_SIZES_INTEL`, Level-Zero's
/// `subGroupSizes`). A kernel's size is the one it requires (`intel_reqd_sub_group_size`,
/// SPIR-V `SubgroupSize`), else [`DEFAULT_SUB_GROUP_SIZE`]; [`KernelInfo::sub_group_size`]
/// holds it. A sub-group is a run of consecutive linear local ids (`get_sub_group_id() =
/// linear / size`, `get_sub_group_local_id() = linear % size`); the last sub-group of a
/// work-group whose size is not a multiple of the size is shorter.
pub const SUB_GROUP_SIZES: [u32; 4] = [4, 8, 16, 32];

/// The sub-group size of a kernel that requires none: the 4 lanes of 32 bits of
/// Cranelift's 128-bit vectors.
pub const DEFAULT_SUB_GROUP_SIZE: u32 = 4;

/// Everything a work-group function needs to know about the launch and its group.
/// Shared with JIT code: the layout is part of the ABI, every field is 64-bit so the
/// offsets are `8 * index` (see [`GroupContext::OFFSET_*`](GroupContext)).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GroupContext {
    /// `get_global_size(d)`; 1 for dimensions beyond `work_dim`.
    pub global_size: [u64; 3],
    /// `get_global_offset(d)`.
    pub global_offset: [u64; 3],
    /// `get_enqueued_local_size(d)`: the local size given at enqueue.
    pub enqueued_local_size: [u64; 3],
    /// `get_local_size(d)`: this group's size (smaller in a non-uniform last group).
    pub local_size: [u64; 3],
    /// `get_num_groups(d)`.
    pub num_groups: [u64; 3],
    /// `get_group_id(d)`.
    pub group_id: [u64; 3],
    /// `get_work_dim()`.
    pub work_dim: u64,
    /// Base of this group's local memory: the kernel's `Workgroup` variables first
    /// (`CompiledKernel::static_local_size` bytes), then the `__local` pointer arguments.
    pub local_mem: *mut u8,
    /// Base of this group's work-item frames: `CompiledKernel::frame_size_per_item` bytes
    /// per work-item of the *enqueued* local size, 16-byte aligned; work-item `l` (linear
    /// local id) owns `frame + l * frame_size_per_item`. Only kernels with barriers or
    /// work-group collectives use it (null is fine when `frame_size_per_item` is 0).
    pub frame: *mut u8,
    /// Bytes of local memory behind `local_mem` (`to_local`/`to_global` ask whether a
    /// generic pointer falls inside it).
    pub local_mem_size: u64,
    /// The launch's [`PrintfBuffer`] for a kernel that calls `printf`
    /// ([`CompiledKernel::uses_printf`]); null otherwise (`printf` then returns -1).
    pub printf: *const PrintfBuffer,
    /// Checked mode (`FERRITE_CHECK`): the launch's [`check::CheckLaunch`], or null.
    pub check: *const check::CheckLaunch,
}

impl GroupContext {
    pub const OFFSET_GLOBAL_SIZE: i32 = 0;
    pub const OFFSET_GLOBAL_OFFSET: i32 = 24;
    pub const OFFSET_ENQUEUED_LOCAL_SIZE: i32 = 48;
    pub const OFFSET_LOCAL_SIZE: i32 = 72;
    pub const OFFSET_NUM_GROUPS: i32 = 96;
    pub const OFFSET_GROUP_ID: i32 = 120;
    pub const OFFSET_WORK_DIM: i32 = 144;
    pub const OFFSET_LOCAL_MEM: i32 = 152;
    pub const OFFSET_FRAME: i32 = 160;
    pub const OFFSET_LOCAL_MEM_SIZE: i32 = 168;
    pub const OFFSET_PRINTF: i32 = 176;
    pub const OFFSET_CHECK: i32 = 184;
}

impl Default for GroupContext {
    fn default() -> Self {
        GroupContext {
            global_size: [1; 3],
            global_offset: [0; 3],
            enqueued_local_size: [1; 3],
            local_size: [1; 3],
            num_groups: [1; 3],
            group_id: [0; 3],
            work_dim: 1,
            local_mem: std::ptr::null_mut(),
            frame: std::ptr::null_mut(),
            local_mem_size: 0,
            printf: std::ptr::null(),
            check: std::ptr::null(),
        }
    }
}

/// The signature of a compiled work-group function.
pub type WorkGroupFn = unsafe extern "C" fn(args: *const u8, ctx: *const GroupContext);

/// OpenCL address space of a pointer argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
}

/// How the runtime fills one argument's slot in the argument block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// Plain bytes copied from `clSetKernelArg`'s `arg_value`: scalars, vectors, and
    /// structs passed by value (`size` is what `clSetKernelArg` must be given).
    Value { size: usize },
    /// A `__global` or `__constant` buffer: the slot holds the buffer's address (8 bytes),
    /// or 0 for a NULL `cl_mem`.
    Buffer { space: AddressSpace },
    /// A `__local` pointer: the slot holds the byte offset (8 bytes) of this argument's
    /// region inside the group's local memory; the runtime chooses it, the kernel adds
    /// `ctx.local_mem`.
    Local,
    /// `sampler_t` (not supported yet: the module is rejected).
    Sampler,
    /// An image (not supported yet: the module is rejected).
    Image,
}

/// One kernel argument as the runtime sees it.
#[derive(Clone, Debug)]
pub struct KernelArg {
    /// Name from `OpName` of the parameter (may be empty).
    pub name: String,
    /// OpenCL C type name when the module carries it (`-cl-kernel-arg-info`), else empty.
    pub type_name: String,
    pub kind: ArgKind,
    /// Byte offset of this argument's slot in the argument block.
    pub offset: usize,
    /// `const`/`volatile`/`restrict` qualifiers from decorations (`CL_KERNEL_ARG_TYPE_*` bits).
    pub type_qualifiers: u64,
    /// An image argument's access qualifier; `None` for other kinds.
    pub image_access: Option<image::ImageAccess>,
}

/// Description of one kernel entry point.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub name: String,
    pub args: Vec<KernelArg>,
    /// Size in bytes of the argument block (each slot 8-byte aligned at least).
    pub args_size: usize,
    /// `reqd_work_group_size` (`OpExecutionMode LocalSize`), if given.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `work_group_size_hint` (`OpExecutionMode LocalSizeHint`), if given.
    pub work_group_size_hint: Option<[u32; 3]>,
    /// `intel_reqd_sub_group_size` (`OpExecutionMode SubgroupSize`), if given (one of
    /// [`SUB_GROUP_SIZES`]: any other is rejected).
    pub reqd_sub_group_size: Option<u32>,
    /// Work-items per sub-group: the required size, else [`DEFAULT_SUB_GROUP_SIZE`].
    pub sub_group_size: u32,
    /// `CL_KERNEL_ATTRIBUTES` string.
    pub attributes: String,
}

/// How a compiled kernel runs its work-items, and why: `FERRITE_DUMP_CLIF=1` prints it
/// per kernel, and tests assert it (a kernel the vectoriser should take and silently does
/// not is a speed bug no result check sees).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    /// Work-items per iteration of the vector loop; 1: scalar only.
    pub lanes: u32,
    /// What runs them, and for a scalar kernel why it is not vectorised.
    pub note: String,
}

mod module;
pub use module::MAX_PROGRAM_SCOPE_BYTES;
pub use module::{
    spec_constants, CompiledKernel, FunctionPointer, GlobalVariable, Module, SpecConstant,
};
pub use workgroup::vector::DEFAULT_LANES;

#[cfg(test)]
mod tests {
    /// The runtime shares modules and kernels across threads.
    #[test]
    fn module_and_kernel_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<crate::Module>();
        check::<crate::CompiledKernel>();
    }

    /// The `OFFSET_*` constants JIT code uses match the struct.
    #[test]
    fn group_context_offsets() {
        use crate::GroupContext as G;
        use std::mem::offset_of;
        let o = |x: usize| i32::try_from(x).unwrap();
        assert_eq!(o(offset_of!(G, global_size)), G::OFFSET_GLOBAL_SIZE);
        assert_eq!(o(offset_of!(G, global_offset)), G::OFFSET_GLOBAL_OFFSET);
        assert_eq!(
            o(offset_of!(G, enqueued_local_size)),
            G::OFFSET_ENQUEUED_LOCAL_SIZE
        );
        assert_eq!(o(offset_of!(G, local_size)), G::OFFSET_LOCAL_SIZE);
        assert_eq!(o(offset_of!(G, num_groups)), G::OFFSET_NUM_GROUPS);
        assert_eq!(o(offset_of!(G, group_id)), G::OFFSET_GROUP_ID);
        assert_eq!(o(offset_of!(G, work_dim)), G::OFFSET_WORK_DIM);
        assert_eq!(o(offset_of!(G, local_mem)), G::OFFSET_LOCAL_MEM);
        assert_eq!(o(offset_of!(G, frame)), G::OFFSET_FRAME);
        assert_eq!(o(offset_of!(G, local_mem_size)), G::OFFSET_LOCAL_MEM_SIZE);
        assert_eq!(o(offset_of!(G, printf)), G::OFFSET_PRINTF);
        assert_eq!(o(offset_of!(G, check)), G::OFFSET_CHECK);
    }
}
