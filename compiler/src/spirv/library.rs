//! OpenCL C built-ins that a compiler leaves as calls to imported functions although a
//! SPIR-V instruction means exactly them: each such call is rewritten into that instruction
//! when the module is lifted, so everything after (region splitting, inlining, codegen)
//! sees an ordinary instruction. The functions are recognised by their Itanium-mangled
//! linkage names (`_Z<length><name><parameter codes>`).
//!
//! - The packed integer dot products of `cl_khr_integer_dot_product`, which llvm-spirv-15
//!   leaves as calls (`dot_4x8packed_{uu_uint,ss_int,us_int,su_int}` and
//!   `dot_acc_sat_4x8packed_…`), become `OpUDot`/`OpSDot`/`OpSUDot` (`…AccSat`) with
//!   `PackedVectorFormat4x8Bit`; `us` (unsigned first, signed second) swaps its operands
//!   into `OpSUDot`, which takes the signed first.
//! - llvm-spirv-14 leaves the vector forms of `dot` and `dot_acc_sat` on 8- and 16-bit
//!   integers as calls (`OpSDot`/`OpUDot`/`OpSUDot`, `…AccSat`, without a packed format),
//!   and knows no `sub_group_rotate` / `sub_group_clustered_rotate` (Ferrite's prelude for
//!   clang-14 declares them; they become `OpGroupNonUniformRotateKHR`).
//! - clang's own SPIR-V target (clang 20 and newer) leaves more as calls (measured with
//!   clang-22): the OpenCL 1.x atomics `atomic_`/`atom_` `inc`, `dec`, `min`, `max`,
//!   `xchg`; the C11 `atomic_fetch_min`/`max` (`_explicit`), integer and float;
//!   conversions to floating-point types (`convert_double(float)`, `convert_half_rtz`,
//!   …); `mem_fence`, `read_mem_fence`, `write_mem_fence`, `sub_group_barrier`; and the
//!   address-space casts `to_global`/`to_local`/`to_private` (`__to_global`, …). They
//!   become the `OpAtomic*`, `OpConvert*`/`OpFConvert` (with the rounding and saturation
//!   a decoration would give), `OpMemoryBarrier`, `OpControlBarrier` and
//!   `OpGenericCastToPtrExplicit` that llvm-spirv emits for the same source. An explicit
//!   memory order or scope that is a constant keeps its meaning; any other is the
//!   strongest.

use super::{Program, Type};
use crate::ir::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::{FPRoundingMode, Op, PackedVectorFormat, StorageClass, Word};
use std::collections::HashMap;

/// The name and the parameter codes of an Itanium-mangled function name.
fn demangle(linkage_name: &str) -> Option<(&str, &str)> {
    let rest = linkage_name.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let end = digits.checked_add(len)?;
    Some((rest.get(digits..end)?, rest.get(end..)?))
}

/// The instruction a packed dot-product function stands for: `(opcode, swap the two
/// operands)`.
fn packed_dot(linkage_name: &str) -> Option<(Op, bool)> {
    let (ident, _) = demangle(linkage_name)?;
    let (acc, tail) = match ident.strip_prefix("dot_acc_sat_4x8packed_") {
        Some(t) => (true, t),
        None => (false, ident.strip_prefix("dot_4x8packed_")?),
    };
    let (plain, sat, swap) = match tail {
        "uu_uint" => (Op::UDot, Op::UDotAccSat, false),
        "ss_int" => (Op::SDot, Op::SDotAccSat, false),
        "su_int" => (Op::SUDot, Op::SUDotAccSat, false),
        "us_int" => (Op::SUDot, Op::SUDotAccSat, true),
        _ => return None,
    };
    Some((if acc { sat } else { plain }, swap))
}

/// The kind of the first parameter's scalar, behind pointers, qualifiers and vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    Signed,
    Unsigned,
    Float,
}

fn first_scalar(params: &str) -> Option<Scalar> {
    scalar_and_rest(params).map(|(s, _)| s)
}

/// The first parameter's scalar kind and the parameter codes after it.
fn scalar_and_rest(mut params: &str) -> Option<(Scalar, &str)> {
    loop {
        if let Some(r) = params.strip_prefix('P') {
            params = r;
        } else if let Some(r) = params.strip_prefix("U3AS") {
            params = r.get(1..)?;
        } else if let Some(r) = params.strip_prefix("U7_Atomic") {
            params = r;
        } else if let Some(r) = params.strip_prefix('V').or(params.strip_prefix('K')) {
            params = r;
        } else if let Some(r) = params.strip_prefix("Dv") {
            params = r.get(r.find('_')? + 1..)?;
        } else {
            break;
        }
    }
    if let Some(rest) = params.strip_prefix("Dh") {
        return Some((Scalar::Float, rest));
    }
    let kind = match params.chars().next()? {
        'c' | 'a' | 's' | 'i' | 'l' | 'x' => Scalar::Signed,
        'h' | 't' | 'j' | 'm' | 'y' | 'b' => Scalar::Unsigned,
        'f' | 'd' => Scalar::Float,
        _ => return None,
    };
    Some((kind, &params[1..]))
}

/// The scalar kinds of the first two parameters (`S_` repeats the first's type).
fn two_scalars(params: &str) -> Option<(Scalar, Scalar)> {
    let (a, rest) = scalar_and_rest(params)?;
    if rest.starts_with("S_") {
        return Some((a, a));
    }
    Some((a, scalar_and_rest(rest)?.0))
}

/// `dot` / `dot_acc_sat` of two integer vectors: the opcode and whether the operands
/// swap (`OpSUDot` takes the signed one first).
fn integer_dot(ident: &str, params: &str) -> Option<(Op, bool)> {
    let acc = match ident {
        "dot" => false,
        "dot_acc_sat" => true,
        _ => return None,
    };
    // Only vectors of 8- or 16-bit integers (the extension's inputs): `dot` of floats is
    // `OpDot`, which compilers emit themselves, and a user's own `dot(int4, int4)` stays
    // an import.
    let elem = params.get(params.find('_')? + 1..)?;
    if !params.starts_with("Dv") || !matches!(elem.chars().next(), Some('c' | 'h' | 's' | 't')) {
        return None;
    }
    let (plain, sat, swap) = match two_scalars(params)? {
        (Scalar::Signed, Scalar::Signed) => (Op::SDot, Op::SDotAccSat, false),
        (Scalar::Unsigned, Scalar::Unsigned) => (Op::UDot, Op::UDotAccSat, false),
        (Scalar::Signed, Scalar::Unsigned) => (Op::SUDot, Op::SUDotAccSat, false),
        (Scalar::Unsigned, Scalar::Signed) => (Op::SUDot, Op::SUDotAccSat, true),
        _ => return None,
    };
    Some((if acc { sat } else { plain }, swap))
}

/// What a call to an imported built-in becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    /// A packed dot product: the opcode, whether the two operands swap.
    Dot(Op, bool),
    /// A dot product of integer vectors: the opcode, whether the two operands swap.
    VectorDot(Op, bool),
    /// `sub_group_rotate(value, delta)` and `sub_group_clustered_rotate(value, delta,
    /// cluster size)`.
    Rotate,
    /// An atomic: the opcode, how many value operands follow the pointer, and whether the
    /// call then passes a memory order (and a scope).
    Atomic {
        op: Op,
        values: usize,
        explicit: bool,
    },
    /// A conversion with what its name's suffixes say.
    Convert {
        op: Op,
        rounding: Option<FPRoundingMode>,
        saturated: bool,
    },
    /// `mem_fence` (semantics `AcquireRelease`), `read_mem_fence` (`Acquire`),
    /// `write_mem_fence` (`Release`): the semantics' ordering bits.
    Fence(u32),
    SubGroupBarrier,
    ToSpace(StorageClass),
    /// `get_fence(p)`: `OpGenericPtrMemSemantics` shifted down to `CLK_*_MEM_FENCE`.
    GetFence,
    /// `clock_read_<scope>` / `clock_read_hilo_<scope>` (`cl_khr_kernel_clock`): the scope.
    Clock(u32),
}

fn builtin(linkage_name: &str) -> Option<Builtin> {
    if let Some((op, swap)) = packed_dot(linkage_name) {
        return Some(Builtin::Dot(op, swap));
    }
    match linkage_name {
        "__to_global" => return Some(Builtin::ToSpace(StorageClass::CrossWorkgroup)),
        "__to_local" => return Some(Builtin::ToSpace(StorageClass::Workgroup)),
        "__to_private" => return Some(Builtin::ToSpace(StorageClass::Function)),
        _ => {}
    }
    // `cl_khr_kernel_clock`, which llvm-spirv (before 17) does not know: Ferrite's prelude
    // declares the functions (`runtime/src/program/kernel_clock.cl`), mangled or not.
    let plain = demangle(linkage_name).map_or(linkage_name, |(ident, _)| ident);
    if let Some(scope) = plain
        .strip_prefix("clock_read_hilo_")
        .or(plain.strip_prefix("clock_read_"))
    {
        return match scope {
            "device" => Some(Builtin::Clock(DEVICE)),
            "work_group" => Some(Builtin::Clock(WORKGROUP)),
            "sub_group" => Some(Builtin::Clock(SUBGROUP)),
            _ => None,
        };
    }
    let (ident, params) = demangle(linkage_name)?;
    if let Some((op, swap)) = integer_dot(ident, params) {
        return Some(Builtin::VectorDot(op, swap));
    }
    match ident {
        "sub_group_rotate" | "sub_group_clustered_rotate" => return Some(Builtin::Rotate),
        "mem_fence" => return Some(Builtin::Fence(0x8)),
        "read_mem_fence" => return Some(Builtin::Fence(0x2)),
        "write_mem_fence" => return Some(Builtin::Fence(0x4)),
        "sub_group_barrier" => return Some(Builtin::SubGroupBarrier),
        "get_fence" => return Some(Builtin::GetFence),
        _ => {}
    }
    let scalar = first_scalar(params)?;
    if let Some(dst) = ident.strip_prefix("convert_") {
        return convert(dst, scalar);
    }
    let (explicit, base) = match ident.strip_suffix("_explicit") {
        Some(b) => (true, b),
        None => (false, ident),
    };
    let legacy = base
        .strip_prefix("atomic_")
        .filter(|_| !explicit)
        .or(base.strip_prefix("atom_").filter(|_| !explicit));
    let op = match (legacy, base.strip_prefix("atomic_fetch_"), scalar) {
        (Some("inc"), _, Scalar::Signed | Scalar::Unsigned) => Op::AtomicIIncrement,
        (Some("dec"), _, Scalar::Signed | Scalar::Unsigned) => Op::AtomicIDecrement,
        (Some("xchg"), _, _) => Op::AtomicExchange,
        (Some("min"), _, Scalar::Signed) | (_, Some("min"), Scalar::Signed) => Op::AtomicSMin,
        (Some("min"), _, Scalar::Unsigned) | (_, Some("min"), Scalar::Unsigned) => Op::AtomicUMin,
        (Some("max"), _, Scalar::Signed) | (_, Some("max"), Scalar::Signed) => Op::AtomicSMax,
        (Some("max"), _, Scalar::Unsigned) | (_, Some("max"), Scalar::Unsigned) => Op::AtomicUMax,
        (_, Some("min"), Scalar::Float) => Op::AtomicFMinEXT,
        (_, Some("max"), Scalar::Float) => Op::AtomicFMaxEXT,
        _ => return None,
    };
    let values = usize::from(!matches!(op, Op::AtomicIIncrement | Op::AtomicIDecrement));
    Some(Builtin::Atomic {
        op,
        values,
        explicit,
    })
}

/// `convert_<destination>[_sat][_rte|_rtz|_rtp|_rtn]` from a `source`: only those with a
/// floating-point side (clang's SPIR-V target lowers integer-to-integer ones itself).
fn convert(dst: &str, source: Scalar) -> Option<Builtin> {
    let (dst, rounding) = match dst.rsplit_once('_') {
        Some((d, "rte")) => (d, Some(FPRoundingMode::RTE)),
        Some((d, "rtz")) => (d, Some(FPRoundingMode::RTZ)),
        Some((d, "rtp")) => (d, Some(FPRoundingMode::RTP)),
        Some((d, "rtn")) => (d, Some(FPRoundingMode::RTN)),
        _ => (dst, None),
    };
    let (dst, saturated) = match dst.strip_suffix("_sat") {
        Some(d) => (d, true),
        None => (dst, false),
    };
    let dst = dst.trim_end_matches(|c: char| c.is_ascii_digit());
    let to = match dst {
        "half" | "float" | "double" => Scalar::Float,
        "char" | "short" | "int" | "long" => Scalar::Signed,
        "uchar" | "ushort" | "uint" | "ulong" => Scalar::Unsigned,
        _ => return None,
    };
    let op = match (source, to) {
        (Scalar::Float, Scalar::Float) => Op::FConvert,
        (Scalar::Float, Scalar::Signed) => Op::ConvertFToS,
        (Scalar::Float, Scalar::Unsigned) => Op::ConvertFToU,
        (Scalar::Signed, Scalar::Float) => Op::ConvertSToF,
        (Scalar::Unsigned, Scalar::Float) => Op::ConvertUToF,
        _ => return None,
    };
    Some(Builtin::Convert {
        op,
        rounding,
        saturated,
    })
}

/// OpenCL C's `memory_order` as SPIR-V memory-semantics ordering bits.
fn order_bits(order: u64) -> u32 {
    match order {
        0 => 0,
        2 => 0x2,
        3 => 0x4,
        4 => 0x8,
        _ => 0x10,
    }
}

/// OpenCL C's `memory_scope` as a SPIR-V scope.
fn scope_of(scope: u64) -> u32 {
    match scope {
        0 => 4,
        1 => 2,
        2 => 1,
        4 => 3,
        _ => 0,
    }
}

/// OpenCL C's `cl_mem_fence_flags` as SPIR-V memory-semantics storage bits.
fn fence_bits(flags: u64) -> u32 {
    let mut bits = 0;
    for (flag, bit) in [(1, 0x100), (2, 0x200), (4, 0x800)] {
        if flags & flag != 0 {
            bits |= bit;
        }
    }
    bits
}

/// Sequentially consistent over work-group and cross-work-group memory.
const STRONGEST_SEMANTICS: u32 = 0x10 | 0x100 | 0x200;
/// `Device`, what llvm-spirv gives the OpenCL 1.x and the non-explicit C11 atomics.
const DEVICE: u32 = 1;
const WORKGROUP: u32 = 2;
const SUBGROUP: u32 = 3;

/// Fresh ids for the rewritten instructions: 32-bit integer constants for their scope and
/// semantics, pointer types and the results of the instructions they add.
struct Fresh {
    next: Word,
    u32_ty: Option<Word>,
    made: HashMap<u32, Word>,
    pointers: HashMap<(StorageClass, Word), Word>,
}

impl Fresh {
    fn id(&mut self) -> Word {
        // Ids past the 32-bit range wrap to collide; `regions::Ids` reports an id bound
        // that overflows, so saturating here ends in that error, not in aliasing.
        self.next = self.next.saturating_add(1);
        self.next - 1
    }

    fn u32_type(&mut self, p: &mut Program) -> Word {
        if let Some(t) = self.u32_ty {
            return t;
        }
        let existing = p
            .types
            .iter()
            .filter(|(_, t)| matches!(t, Type::Int { width: 32, .. }))
            .map(|(id, _)| *id)
            .min();
        let t = existing.unwrap_or_else(|| {
            let id = self.id();
            p.types.insert(
                id,
                Type::Int {
                    width: 32,
                    signed: false,
                },
            );
            id
        });
        self.u32_ty = Some(t);
        t
    }

    /// A pointer type to `pointee` in `class`.
    fn pointer(&mut self, p: &mut Program, class: StorageClass, pointee: Word) -> Word {
        if let Some(t) = self.pointers.get(&(class, pointee)) {
            return *t;
        }
        let t = p.type_id_or_add(Type::Pointer { class, pointee }, || self.id());
        self.pointers.insert((class, pointee), t);
        t
    }

    /// The id of the 32-bit constant `value`.
    fn constant(&mut self, p: &mut Program, value: u32) -> Word {
        if let Some(id) = self.made.get(&value) {
            return *id;
        }
        let ty = self.u32_type(p);
        let id = self.id();
        p.constants.insert(
            id,
            super::Constant::Scalar {
                ty,
                bits: u64::from(value),
            },
        );
        self.made.insert(value, id);
        id
    }
}

impl Program {
    /// Rewrite every call to a bodiless import that names one of the built-ins above.
    /// `next` is the first free id; returns the next one after the constants made.
    pub(super) fn lower_library_calls(&mut self, next: Word) -> Word {
        let library: HashMap<Word, Builtin> = self
            .functions
            .iter()
            .filter(|(_, f)| f.blocks.is_empty())
            .filter_map(|(id, _)| Some((*id, builtin(&self.linkage_name(*id)?)?)))
            .collect();
        if library.is_empty() {
            return next;
        }
        let mut fresh = Fresh {
            next,
            u32_ty: None,
            made: HashMap::new(),
            pointers: HashMap::new(),
        };
        let mut fids: Vec<Word> = self.functions.keys().copied().collect();
        fids.sort_unstable();
        let calls_library = |i: &Inst| {
            i.class.opcode == Op::FunctionCall
                && matches!(i.operands.first(), Some(Operand::IdRef(c)) if library.contains_key(c))
        };
        for fid in fids {
            let calls = self
                .functions
                .get(&fid)
                .is_some_and(|f| f.blocks.iter().flat_map(|b| &b.insts).any(calls_library));
            if !calls {
                continue;
            }
            let Some(mut f) = self.functions.remove(&fid) else {
                continue;
            };
            // The type of each value the function defines (a rewrite may need a pointer's).
            let local = f.value_types();
            for b in &mut f.blocks {
                let mut out = Vec::with_capacity(b.insts.len());
                for inst in std::mem::take(&mut b.insts) {
                    let builtin = match inst.operands.first() {
                        Some(Operand::IdRef(c)) if calls_library(&inst) => library[c],
                        _ => {
                            out.push(inst);
                            continue;
                        }
                    };
                    let args: Vec<Operand> = inst.operands[1..].to_vec();
                    match self.rewrite(builtin, &inst, args, &local, &mut fresh) {
                        Some(new) => out.extend(new),
                        None => out.push(inst),
                    }
                }
                b.insts = out;
            }
            self.functions.insert(fid, f);
        }
        fresh.next
    }

    /// The instructions `call` (to `builtin`, with `args`) becomes, or `None` to leave the
    /// call (it is then reported as an unresolved import).
    fn rewrite(
        &mut self,
        builtin: Builtin,
        call: &Inst,
        mut args: Vec<Operand>,
        local: &HashMap<Word, Word>,
        fresh: &mut Fresh,
    ) -> Option<Vec<Inst>> {
        let type_of = |p: &Program, v: Word| {
            local
                .get(&v)
                .copied()
                .or_else(|| p.constants.get(&v).map(|c| c.ty()))
                .or_else(|| p.globals.get(&v).map(|g| g.ptr_ty))
        };
        let (ty, id) = (call.result_type, call.result_id);
        let id_of = |o: &Operand| match o {
            Operand::IdRef(id) => Some(*id),
            _ => None,
        };
        let constant = |p: &Program, o: Option<&Operand>| {
            o.and_then(id_of).and_then(|id| p.const_u64(id).ok())
        };
        Some(vec![match builtin {
            Builtin::Dot(op, swap) => {
                if swap && args.len() >= 2 {
                    args.swap(0, 1);
                }
                args.push(Operand::PackedVectorFormat(
                    PackedVectorFormat::PackedVectorFormat4x8Bit,
                ));
                Inst::new(op, ty, id, args)
            }
            Builtin::VectorDot(op, swap) => {
                if swap && args.len() >= 2 {
                    args.swap(0, 1);
                }
                Inst::new(op, ty, id, args)
            }
            Builtin::Rotate => {
                if !matches!(args.len(), 2 | 3) {
                    return None;
                }
                let mut ops = vec![Operand::IdScope(fresh.constant(self, SUBGROUP))];
                ops.extend(args);
                Inst::new(Op::GroupNonUniformRotateKHR, ty, id, ops)
            }
            Builtin::Atomic {
                op,
                values,
                explicit,
            } => {
                if args.len() < 1 + values {
                    return None;
                }
                let (mut sem, mut scope) = (STRONGEST_SEMANTICS, DEVICE);
                if explicit {
                    sem = match constant(self, args.get(1 + values)) {
                        Some(order) => order_bits(order) | 0x100 | 0x200,
                        None => STRONGEST_SEMANTICS,
                    };
                    scope = match args.get(2 + values) {
                        None => DEVICE,
                        Some(s) => constant(self, Some(s)).map_or(0, scope_of),
                    };
                }
                // clang's SPIR-V target passes `i8` pointers; the atomic works on what
                // its result (or stored value) is.
                let mut pre = Vec::new();
                let mut ptr = args[0].clone();
                let value_ty = ty.or_else(|| {
                    let v = id_of(args.get(1)?)?;
                    type_of(self, v)
                })?;
                let ptr_ty = type_of(self, id_of(&ptr)?)?;
                let (class, pointee) = self.pointer_type(ptr_ty).ok()?;
                if pointee != value_ty {
                    let cast_ty = fresh.pointer(self, class, value_ty);
                    let cast = fresh.id();
                    pre.push(Inst::new(Op::Bitcast, Some(cast_ty), Some(cast), vec![ptr]));
                    ptr = Operand::IdRef(cast);
                }
                let mut ops = vec![
                    ptr,
                    Operand::IdScope(fresh.constant(self, scope)),
                    Operand::IdMemorySemantics(fresh.constant(self, sem)),
                ];
                ops.extend(args[1..1 + values].iter().cloned());
                pre.push(Inst::new(op, ty, id, ops));
                return Some(pre);
            }
            Builtin::Convert {
                op,
                rounding,
                saturated,
            } => {
                let mut new = Inst::new(op, ty, id, vec![args.first()?.clone()]);
                new.effects.rounding = rounding;
                new.effects.saturated = saturated;
                new
            }
            Builtin::Fence(order) => {
                let bits = constant(self, args.first()).map_or(0x100 | 0x200 | 0x800, fence_bits);
                let ops = vec![
                    Operand::IdScope(fresh.constant(self, WORKGROUP)),
                    Operand::IdMemorySemantics(fresh.constant(self, order | bits)),
                ];
                Inst::new(Op::MemoryBarrier, None, None, ops)
            }
            Builtin::SubGroupBarrier => {
                let bits = constant(self, args.first()).map_or(0x100 | 0x200 | 0x800, fence_bits);
                let scope = match args.get(1) {
                    None => SUBGROUP,
                    Some(s) => constant(self, Some(s)).map_or(0, scope_of),
                };
                let ops = vec![
                    Operand::IdScope(fresh.constant(self, SUBGROUP)),
                    Operand::IdScope(fresh.constant(self, scope)),
                    Operand::IdMemorySemantics(fresh.constant(self, 0x8 | bits)),
                ];
                Inst::new(Op::ControlBarrier, None, None, ops)
            }
            Builtin::ToSpace(class) => Inst::new(
                Op::GenericCastToPtrExplicit,
                ty,
                id,
                vec![args.first()?.clone(), Operand::StorageClass(class)],
            ),
            Builtin::Clock(scope) => Inst::new(
                Op::ReadClockKHR,
                ty,
                id,
                vec![Operand::IdScope(fresh.constant(self, scope))],
            ),
            Builtin::GetFence => {
                let sem = fresh.id();
                let eight = fresh.constant(self, 8);
                return Some(vec![
                    Inst::new(
                        Op::GenericPtrMemSemantics,
                        ty,
                        Some(sem),
                        vec![args.first()?.clone()],
                    ),
                    Inst::new(
                        Op::ShiftRightLogical,
                        ty,
                        id,
                        vec![Operand::IdRef(sem), Operand::IdRef(eight)],
                    ),
                ]);
            }
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            packed_dot("_Z21dot_4x8packed_uu_uintjj"),
            Some((Op::UDot, false))
        );
        assert_eq!(
            packed_dot("_Z28dot_acc_sat_4x8packed_us_intjji"),
            Some((Op::SUDotAccSat, true))
        );
        assert_eq!(packed_dot("_Z3dotDv4_hS_"), None);
        assert_eq!(packed_dot("_Z99dot"), None);
        assert_eq!(packed_dot("dot_4x8packed_uu_uint"), None);
    }

    #[test]
    fn clang_target_names() {
        let atomic = |op, values, explicit| {
            Some(Builtin::Atomic {
                op,
                values,
                explicit,
            })
        };
        assert_eq!(
            builtin("_Z10atomic_incPU3AS3Vi"),
            atomic(Op::AtomicIIncrement, 0, false)
        );
        assert_eq!(
            builtin("_Z8atom_decPU3AS1Vl"),
            atomic(Op::AtomicIDecrement, 0, false)
        );
        assert_eq!(
            builtin("_Z10atomic_maxPU3AS1Vjj"),
            atomic(Op::AtomicUMax, 1, false)
        );
        assert_eq!(
            builtin("_Z8atom_minPU3AS1Vll"),
            atomic(Op::AtomicSMin, 1, false)
        );
        assert_eq!(
            builtin("_Z11atomic_xchgPU3AS1Vff"),
            atomic(Op::AtomicExchange, 1, false)
        );
        assert_eq!(
            builtin("_Z16atomic_fetch_minPU3AS4VU7_Atomicff"),
            atomic(Op::AtomicFMinEXT, 1, false)
        );
        assert_eq!(
            builtin("_Z25atomic_fetch_max_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope"),
            atomic(Op::AtomicSMax, 1, true)
        );
        // Atomics llvm-spirv and clang lower themselves are not taken.
        assert_eq!(builtin("_Z10atomic_addPU3AS1Vii"), None);
        assert_eq!(builtin("_Z10atomic_incPU3AS1Vf"), None);
        assert_eq!(
            builtin("_Z18convert_double_rtzl"),
            Some(Builtin::Convert {
                op: Op::ConvertSToF,
                rounding: Some(FPRoundingMode::RTZ),
                saturated: false
            })
        );
        assert_eq!(
            builtin("_Z18convert_float4_rtpDv4_m"),
            Some(Builtin::Convert {
                op: Op::ConvertUToF,
                rounding: Some(FPRoundingMode::RTP),
                saturated: false
            })
        );
        assert_eq!(
            builtin("_Z16convert_half_rtzf"),
            Some(Builtin::Convert {
                op: Op::FConvert,
                rounding: Some(FPRoundingMode::RTZ),
                saturated: false
            })
        );
        assert_eq!(
            builtin("_Z21convert_uchar_sat_rtnDh"),
            Some(Builtin::Convert {
                op: Op::ConvertFToU,
                rounding: Some(FPRoundingMode::RTN),
                saturated: true
            })
        );
        // Integer to integer is left to the compiler.
        assert_eq!(builtin("_Z16convert_uint_satm"), None);
        assert_eq!(builtin("_Z9mem_fencej"), Some(Builtin::Fence(0x8)));
        assert_eq!(
            builtin("_Z17sub_group_barrierj"),
            Some(Builtin::SubGroupBarrier)
        );
        assert_eq!(builtin("_Z9get_fencePU3AS4v"), Some(Builtin::GetFence));
        assert_eq!(
            builtin("__to_local"),
            Some(Builtin::ToSpace(StorageClass::Workgroup))
        );
        assert_eq!(builtin("_Z3fooi"), None);
        assert_eq!(
            builtin("_Z11dot_acc_satDv4_hS_j"),
            Some(Builtin::VectorDot(Op::UDotAccSat, false))
        );
        assert_eq!(
            builtin("_Z3dotDv4_hDv4_c"),
            Some(Builtin::VectorDot(Op::SUDot, true))
        );
        assert_eq!(
            builtin("_Z3dotDv2_sS_"),
            Some(Builtin::VectorDot(Op::SDot, false))
        );
        assert_eq!(builtin("_Z3dotDv4_fS_"), None);
        assert_eq!(builtin("_Z3dotDv4_iS_"), None);
        assert_eq!(builtin("_Z18446744073709551615x"), None);
        assert_eq!(builtin("_Z16sub_group_rotateii"), Some(Builtin::Rotate));
        assert_eq!(builtin("clock_read_device"), Some(Builtin::Clock(1)));
        assert_eq!(
            builtin("_Z25clock_read_hilo_sub_groupv"),
            Some(Builtin::Clock(3))
        );
        assert_eq!(builtin("clock_read_elsewhere"), None);
    }

    #[test]
    fn opencl_enums() {
        assert_eq!(order_bits(0), 0);
        assert_eq!(order_bits(5), 0x10);
        assert_eq!(scope_of(1), 2);
        assert_eq!(scope_of(2), 1);
        assert_eq!(fence_bits(3), 0x300);
    }
}
