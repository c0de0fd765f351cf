//! Rewrites a SPIR-V module from the OpenCL memory model into the Vulkan memory model the
//! way a producer targeting SPIR-V 1.5 would write it, so the same kernels test both:
//! version 1.5, `OpCapability VulkanMemoryModel(DeviceScope)`, `OpMemoryModel Physical64
//! VulkanKHR`, `MakeAvailable` on every releasing and `MakeVisible` on every acquiring
//! semantics (plus `Volatile` on atomics), and `NonPrivatePointer` with
//! `MakePointerAvailable`/`MakePointerVisible` at device scope on every load and store that
//! is not to private memory.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, MemoryAccess, MemoryModel, MemorySemantics, Op, StorageClass};
use std::collections::HashMap;

const ORDERING_RELEASE: u32 = 0x4 | 0x8 | 0x10; // Release, AcquireRelease, SequentiallyConsistent
const ORDERING_ACQUIRE: u32 = 0x2 | 0x8 | 0x10; // Acquire, AcquireRelease, SequentiallyConsistent

/// Operand indices of the memory-semantics ids of the instructions that have them.
fn semantics_operands(op: Op) -> &'static [usize] {
    use Op::*;
    match op {
        AtomicLoad | AtomicStore | AtomicExchange | AtomicIIncrement | AtomicIDecrement
        | AtomicIAdd | AtomicISub | AtomicSMin | AtomicUMin | AtomicSMax | AtomicUMax
        | AtomicAnd | AtomicOr | AtomicXor | AtomicFlagTestAndSet | AtomicFlagClear
        | AtomicFAddEXT | AtomicFMinEXT | AtomicFMaxEXT => &[2],
        AtomicCompareExchange | AtomicCompareExchangeWeak => &[2, 3],
        ControlBarrier => &[2],
        MemoryBarrier => &[1],
        _ => &[],
    }
}

/// The module rewritten into the Vulkan memory model (panics on a module it cannot read:
/// tests feed it clang's output).
pub fn to_vulkan_memory_model(spv: &[u8]) -> Vec<u8> {
    let words: Vec<u32> = spv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut m: Module = rspirv::dr::load_words(&words).expect("load SPIR-V");
    let header = m.header.as_mut().expect("header");
    header.set_version(1, 5);
    let mut bound = header.bound;
    for c in [
        Capability::VulkanMemoryModel,
        Capability::VulkanMemoryModelDeviceScope,
    ] {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(c)],
        ));
    }
    m.memory_model.as_mut().expect("OpMemoryModel").operands[1] =
        Operand::MemoryModel(MemoryModel::Vulkan);

    // Integer constants and the 32-bit integer type, to look semantics up and add new ones.
    let mut consts: HashMap<u32, (u32, u32)> = HashMap::new(); // id → (type, value)
    let mut uint = None;
    let mut pointer_class: HashMap<u32, StorageClass> = HashMap::new(); // pointer type → class
    for i in &m.types_global_values {
        match i.class.opcode {
            Op::TypeInt if i.operands[0] == Operand::LiteralBit32(32) => uint = i.result_id,
            Op::Constant => {
                if let Operand::LiteralBit32(v) = i.operands[0] {
                    consts.insert(i.result_id.unwrap(), (i.result_type.unwrap(), v));
                }
            }
            Op::TypePointer => {
                if let Operand::StorageClass(c) = i.operands[0] {
                    pointer_class.insert(i.result_id.unwrap(), c);
                }
            }
            _ => {}
        }
    }
    let uint = uint.expect("the module has a 32-bit integer type");
    let mut new_consts = Vec::new();
    let constant = |value: u32, new_consts: &mut Vec<Instruction>, bound: &mut u32| {
        let id = *bound;
        *bound += 1;
        new_consts.push(Instruction::new(
            Op::Constant,
            Some(uint),
            Some(id),
            vec![Operand::LiteralBit32(value)],
        ));
        id
    };
    let device_scope = constant(1, &mut new_consts, &mut bound);

    // Types of every value, to find each load's and store's pointer class.
    let mut type_of: HashMap<u32, u32> = HashMap::new();
    for i in m
        .types_global_values
        .iter()
        .chain(m.functions.iter().flat_map(|f| {
            f.parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
        }))
    {
        if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
            type_of.insert(id, t);
        }
    }

    let mut rewritten: HashMap<u32, u32> = HashMap::new();
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                let op = i.class.opcode;
                for &k in semantics_operands(op) {
                    let (Operand::IdMemorySemantics(id) | Operand::IdRef(id)) = i.operands[k]
                    else {
                        continue;
                    };
                    let Some(&(_, old)) = consts.get(&id) else {
                        continue;
                    };
                    let mut new = old;
                    if old & ORDERING_RELEASE != 0 {
                        new |= MemorySemantics::MAKE_AVAILABLE.bits();
                    }
                    if old & ORDERING_ACQUIRE != 0 {
                        new |= MemorySemantics::MAKE_VISIBLE.bits();
                    }
                    if op != Op::ControlBarrier && op != Op::MemoryBarrier {
                        new |= MemorySemantics::VOLATILE.bits();
                    }
                    let nid = *rewritten
                        .entry(new)
                        .or_insert_with(|| constant(new, &mut new_consts, &mut bound));
                    i.operands[k] = Operand::IdMemorySemantics(nid);
                }
                let (ptr_at, mask_at, make) = match op {
                    Op::Load => (0, 1, MemoryAccess::MAKE_POINTER_VISIBLE),
                    Op::Store => (0, 2, MemoryAccess::MAKE_POINTER_AVAILABLE),
                    _ => continue,
                };
                let Operand::IdRef(ptr) = i.operands[ptr_at] else {
                    continue;
                };
                let class = type_of.get(&ptr).and_then(|t| pointer_class.get(t));
                if matches!(class, Some(StorageClass::Function) | None) {
                    continue;
                }
                let old = match i.operands.get(mask_at) {
                    Some(Operand::MemoryAccess(a)) => *a,
                    _ => MemoryAccess::NONE,
                };
                if old.intersects(
                    MemoryAccess::MAKE_POINTER_AVAILABLE | MemoryAccess::MAKE_POINTER_VISIBLE,
                ) {
                    continue;
                }
                let mask = old | MemoryAccess::NON_PRIVATE_POINTER | make;
                // The literal of `Aligned` (bit 0x2) stays before the scope of the
                // `MakePointer*` bits (0x8, 0x10): operands follow the bits' order.
                let rest: Vec<Operand> = i.operands.drain(mask_at..).skip(1).collect();
                i.operands.push(Operand::MemoryAccess(mask));
                i.operands.extend(rest);
                i.operands.push(Operand::IdScope(device_scope));
            }
        }
    }
    m.types_global_values.extend(new_consts);
    m.header.as_mut().unwrap().bound = bound;
    m.assemble().iter().flat_map(|w| w.to_le_bytes()).collect()
}
