//! The OpenCL memory model on a CPU: how SPIR-V atomics, fences and barriers become
//! Cranelift instructions, as one table ([`ATOMIC_RULES`], [`FENCE_RULES`]) with the reason
//! for every row.
//!
//! Facts the table rests on:
//! - Cranelift's `atomic_rmw`, `atomic_cas`, `atomic_load`, `atomic_store` and `fence` are
//!   sequentially consistent and integer-only. Weaker orders (Relaxed, Acquire, Release,
//!   AcquireRelease) therefore map *up* to SeqCst; float atomics become compare-and-swap
//!   loops on the bit pattern. On x86-64 a SeqCst RMW is a `lock`ed instruction (a full
//!   barrier), a SeqCst load a plain `mov`, a SeqCst store `mov` + `mfence`; on AArch64
//!   LSE/exclusive pairs with acquire-release plus `dmb` where needed.
//! - A work-group runs on one thread, start to end: the executor calls its work-group
//!   function once, and the work-items inside it run one after another, switching only at
//!   calls/returns of Cranelift functions (the per-work-item kernel call, or the region
//!   step at a barrier). Cranelift treats every call as reading and writing all memory, so
//!   nothing is cached or reordered across a work-item switch: that *is* the compiler
//!   barrier work-group ordering needs, and no instruction has to be emitted for it.
//! - `__local` memory lives in the worker's arena and is reachable only by the group using
//!   it; `__private` memory only by its work-item. Another thread cannot observe a torn
//!   read-modify-write there, so plain loads and stores are atomic enough.
//! - `__global` memory (and `Generic` pointers, which may point to it) is shared with
//!   other groups running on other workers and with host threads (SVM). Those accesses
//!   need real atomic instructions **whatever scope the module states**: OpenCL 1.2
//!   `atomic_add` on global memory arrives as `Workgroup` scope, Relaxed (measured with
//!   clang-15 + llvm-spirv-15), although its meaning is device-wide.
//!
//! Barriers (`OpControlBarrier`) are region boundaries, not fences: every work-item of the
//! group finishes the region before any starts the next, on the same thread.
//!
//! Modules declaring the Vulkan memory model (`OpMemoryModel Physical64 VulkanKHR`,
//! `SPV_KHR_vulkan_memory_model`, core in SPIR-V 1.5) add *availability* and *visibility*
//! operations: `MakeAvailable`/`MakeVisible` semantics bits on atomics and barriers, and
//! `MakePointerAvailable`/`MakePointerVisible`/`NonPrivatePointer` operands on loads and
//! stores. On a CPU with coherent caches a store is available to every thread, and a load
//! sees what is available, as soon as the instruction is performed; what the model still
//! needs is *ordering*, and that comes from the ordering bits those operations must travel
//! with (Release for MakeAvailable, Acquire for MakeVisible), lowered by the same rows as
//! in the OpenCL model. Cranelift moves no load or store across an atomic, a fence or a
//! call (its alias analysis treats them as touching all memory), so a plain access the
//! module marks `NonPrivatePointer` stays where the program put it relative to them. The
//! `Volatile` semantics bit asks for no more than an atomic already is. So these bits and
//! operands select no instruction of their own; `compiler/tests/litmus.rs` runs the litmus
//! tests again with every module rewritten into the Vulkan model.

use rspirv::spirv::{MemorySemantics, Scope, StorageClass};

/// How an `OpAtomic*` access is performed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicLowering {
    /// Plain `load` / `store` (an RMW is load, operate, store): no other thread can reach
    /// the location.
    Plain,
    /// Cranelift's SeqCst atomic instruction (`atomic_rmw`/`atomic_cas`/`atomic_load`/
    /// `atomic_store`; float RMWs as an `atomic_cas` loop).
    SeqCst,
}

/// Which memory an atomic's pointer may point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `Function` storage: one work-item's private memory.
    Private,
    /// `Workgroup` storage: the group's local memory.
    Local,
    /// `CrossWorkgroup` storage: global memory (buffers, SVM, program-scope variables).
    Global,
    /// `Generic` (or any other class): may be any of the above.
    Generic,
}

impl Space {
    pub fn of(class: StorageClass) -> Space {
        match class {
            StorageClass::Function => Space::Private,
            StorageClass::Workgroup => Space::Local,
            StorageClass::CrossWorkgroup => Space::Global,
            _ => Space::Generic,
        }
    }
}

/// One row of the atomic table: the lowering for a storage space, for every scope and
/// every memory-semantics value.
pub struct AtomicRule {
    pub space: Space,
    pub lowering: AtomicLowering,
    pub reason: &'static str,
}

/// Atomics: `(space, any scope, any semantics) → lowering`. Scope and semantics do not
/// change the lowering: the only way to be weaker than SeqCst is to be plain, which is
/// decided by who can reach the memory, and the stated scope is not trusted (see above).
pub const ATOMIC_RULES: &[AtomicRule] = &[
    AtomicRule {
        space: Space::Private,
        lowering: AtomicLowering::Plain,
        reason: "private memory is visible to its own work-item only; program order is all \
                 any scope can ask for",
    },
    AtomicRule {
        space: Space::Local,
        lowering: AtomicLowering::Plain,
        reason: "a group's local memory is reached only by that group, which runs on one \
                 thread and switches work-items only at calls (compiler barriers); a plain \
                 load-op-store cannot be interleaved, at any scope",
    },
    AtomicRule {
        space: Space::Global,
        lowering: AtomicLowering::SeqCst,
        reason: "other groups (other workers) and host threads (SVM) access global memory \
                 concurrently; Workgroup scope is not trusted (OpenCL 1.2 atomics arrive \
                 as Workgroup/Relaxed); every order maps up to Cranelift's SeqCst",
    },
    AtomicRule {
        space: Space::Generic,
        lowering: AtomicLowering::SeqCst,
        reason: "a generic pointer may point to global memory: treated as global (a \
                 locked RMW on local memory is correct, only slower)",
    },
];

/// The lowering of an atomic access through a pointer to `class`.
pub fn atomic_lowering(class: StorageClass) -> AtomicLowering {
    let space = Space::of(class);
    ATOMIC_RULES
        .iter()
        .find(|r| r.space == space)
        .map_or(AtomicLowering::SeqCst, |r| r.lowering)
}

/// What a fence (`OpMemoryBarrier`, or the memory part of `OpControlBarrier`) emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceLowering {
    /// Nothing: the ordering is already guaranteed (see the rule's reason).
    None,
    /// Cranelift `fence` (SeqCst: `mfence` on x86-64, `dmb ish` on AArch64).
    Fence,
}

/// Which memory a fence's semantics cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceMemory {
    /// No ordering bit (Relaxed): orders nothing.
    Unordered,
    /// Only `WorkgroupMemory` / `SubgroupMemory`.
    LocalOnly,
    /// `CrossWorkgroupMemory`, `ImageMemory`, or no storage bit at all (all memory).
    Global,
}

/// Which instruction the fence belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceSite {
    /// `OpMemoryBarrier`: the program asked for a fence.
    MemoryBarrier,
    /// The memory semantics of `OpControlBarrier`.
    ControlBarrier,
}

/// Memory scope classes a fence rule distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeClass {
    /// `Invocation`, `Subgroup`, `Workgroup`: the group's own work-items.
    Group,
    /// `Device`, `CrossDevice`, `QueueFamily`: other groups and the host.
    Device,
}

impl ScopeClass {
    pub fn of(scope: u32) -> ScopeClass {
        match scope {
            s if s == Scope::Workgroup as u32
                || s == Scope::Subgroup as u32
                || s == Scope::Invocation as u32 =>
            {
                ScopeClass::Group
            }
            _ => ScopeClass::Device,
        }
    }
}

pub struct FenceRule {
    pub site: FenceSite,
    pub memory: FenceMemory,
    /// `None`: any scope.
    pub scope: Option<ScopeClass>,
    pub lowering: FenceLowering,
    pub reason: &'static str,
}

/// Fences, first matching row wins.
pub const FENCE_RULES: &[FenceRule] = &[
    FenceRule {
        site: FenceSite::MemoryBarrier,
        memory: FenceMemory::Unordered,
        scope: None,
        lowering: FenceLowering::None,
        reason: "Relaxed semantics order nothing",
    },
    FenceRule {
        site: FenceSite::ControlBarrier,
        memory: FenceMemory::Unordered,
        scope: None,
        lowering: FenceLowering::None,
        reason: "a barrier without memory semantics is only a region boundary",
    },
    FenceRule {
        site: FenceSite::MemoryBarrier,
        memory: FenceMemory::LocalOnly,
        scope: None,
        lowering: FenceLowering::None,
        reason: "local memory is reached by this group only, on this thread: program order \
                 plus the calls between work-items already order it",
    },
    FenceRule {
        site: FenceSite::ControlBarrier,
        memory: FenceMemory::LocalOnly,
        scope: None,
        lowering: FenceLowering::None,
        reason: "as above; the barrier's region boundary (a return to the work-group loop) \
                 is a compiler barrier",
    },
    FenceRule {
        site: FenceSite::MemoryBarrier,
        memory: FenceMemory::Global,
        scope: None,
        lowering: FenceLowering::Fence,
        reason: "global memory is shared with other workers and the host; the stated scope \
                 is not trusted (OpenCL 1.2 mem_fence arrives as Workgroup scope) and an \
                 explicit fence is rare enough to pay for",
    },
    FenceRule {
        site: FenceSite::ControlBarrier,
        memory: FenceMemory::Global,
        scope: Some(ScopeClass::Group),
        lowering: FenceLowering::None,
        reason: "barrier(CLK_GLOBAL_MEM_FENCE) orders global memory among the group's own \
                 work-items, which run on this thread: no instruction needed (emitting one \
                 would cost a fence per work-item per barrier)",
    },
    FenceRule {
        site: FenceSite::ControlBarrier,
        memory: FenceMemory::Global,
        scope: Some(ScopeClass::Device),
        lowering: FenceLowering::Fence,
        reason: "work_group_barrier(…, memory_scope_device) also publishes to other groups \
                 and the host",
    },
];

/// Classify memory semantics bits.
pub fn fence_memory(semantics: u32) -> FenceMemory {
    let s = MemorySemantics::from_bits_truncate(semantics);
    let ordering = MemorySemantics::ACQUIRE
        | MemorySemantics::RELEASE
        | MemorySemantics::ACQUIRE_RELEASE
        | MemorySemantics::SEQUENTIALLY_CONSISTENT;
    if !s.intersects(ordering) {
        return FenceMemory::Unordered;
    }
    let local = MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::SUBGROUP_MEMORY;
    let storage = local
        | MemorySemantics::CROSS_WORKGROUP_MEMORY
        | MemorySemantics::IMAGE_MEMORY
        | MemorySemantics::UNIFORM_MEMORY
        | MemorySemantics::ATOMIC_COUNTER_MEMORY
        | MemorySemantics::OUTPUT_MEMORY;
    if s.intersects(storage) && !s.intersects(storage - local) {
        FenceMemory::LocalOnly
    } else {
        FenceMemory::Global
    }
}

/// The lowering of a fence at `site` with memory `scope` and `semantics`.
pub fn fence_lowering(site: FenceSite, scope: u32, semantics: u32) -> FenceLowering {
    let memory = fence_memory(semantics);
    let class = ScopeClass::of(scope);
    FENCE_RULES
        .iter()
        .find(|r| r.site == site && r.memory == memory && r.scope.is_none_or(|s| s == class))
        .map_or(FenceLowering::Fence, |r| r.lowering)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_space_has_one_atomic_rule() {
        for s in [Space::Private, Space::Local, Space::Global, Space::Generic] {
            assert_eq!(ATOMIC_RULES.iter().filter(|r| r.space == s).count(), 1);
        }
        assert_eq!(
            atomic_lowering(StorageClass::CrossWorkgroup),
            AtomicLowering::SeqCst
        );
        assert_eq!(
            atomic_lowering(StorageClass::Generic),
            AtomicLowering::SeqCst
        );
        assert_eq!(
            atomic_lowering(StorageClass::Workgroup),
            AtomicLowering::Plain
        );
    }

    #[test]
    fn every_fence_case_has_a_rule() {
        for site in [FenceSite::MemoryBarrier, FenceSite::ControlBarrier] {
            for memory in [
                FenceMemory::Unordered,
                FenceMemory::LocalOnly,
                FenceMemory::Global,
            ] {
                for scope in [ScopeClass::Group, ScopeClass::Device] {
                    let n = FENCE_RULES
                        .iter()
                        .filter(|r| {
                            r.site == site
                                && r.memory == memory
                                && r.scope.is_none_or(|s| s == scope)
                        })
                        .count();
                    assert_eq!(n, 1, "{site:?} {memory:?} {scope:?}");
                }
            }
        }
    }

    #[test]
    fn what_clang_emits() {
        // barrier(CLK_LOCAL_MEM_FENCE): Workgroup, 0x110.
        assert_eq!(
            fence_lowering(FenceSite::ControlBarrier, 2, 0x110),
            FenceLowering::None
        );
        // barrier(CLK_GLOBAL_MEM_FENCE): Workgroup, 0x210.
        assert_eq!(
            fence_lowering(FenceSite::ControlBarrier, 2, 0x210),
            FenceLowering::None
        );
        // mem_fence(CLK_GLOBAL_MEM_FENCE): OpMemoryBarrier Workgroup, 0x208.
        assert_eq!(
            fence_lowering(FenceSite::MemoryBarrier, 2, 0x208),
            FenceLowering::Fence
        );
        // mem_fence(CLK_LOCAL_MEM_FENCE): Workgroup, 0x108.
        assert_eq!(
            fence_lowering(FenceSite::MemoryBarrier, 2, 0x108),
            FenceLowering::None
        );
        // atomic_work_item_fence(global, seq_cst, device): Device, 0x210.
        assert_eq!(
            fence_lowering(FenceSite::MemoryBarrier, 1, 0x210),
            FenceLowering::Fence
        );
        // work_group_barrier(global, device scope).
        assert_eq!(
            fence_lowering(FenceSite::ControlBarrier, 1, 0x210),
            FenceLowering::Fence
        );
    }
}
