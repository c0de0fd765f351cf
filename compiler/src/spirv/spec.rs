//! `OpSpecConstantOp`: folded at lift time, once the specialization constants it reads have
//! their values (`Module::from_spirv_with_spec_constants`), into an ordinary constant.
//! Scalar integer, boolean and floating operations, conversions, `OpSelect` and
//! `OpCompositeExtract` are folded; anything else is an error naming the operation.
//!
//! Operations on the address of a module-scope variable (what llvm-spirv makes of a
//! program-scope initialiser like `global int *p = &arr[2];`: `Bitcast`, then
//! `PtrAccessChain` on a `uchar` pointer, then `Bitcast` back; other producers use typed
//! access chains, `PtrCastToGeneric`, or `ConvertPtrToU` + `IAdd`) fold to
//! [`Constant::Address`]: the variable and a byte offset, resolved to an address when the
//! module's storage is laid out.

use super::{op_id, op_lit, result_id, result_type, Constant, Program, Result, Type};
use crate::layout::{layout, member_offsets};
use crate::CompileError;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

/// A scalar constant's value and type.
#[derive(Clone, Copy)]
struct Sc {
    bits: u64,
    ty: Word,
}

impl Program {
    fn scalar_const(&self, id: Word) -> Result<Sc> {
        match self.constant(id)? {
            Constant::Scalar { ty, bits } => Ok(Sc {
                bits: *bits,
                ty: *ty,
            }),
            Constant::Null { ty } => Ok(Sc { bits: 0, ty: *ty }),
            Constant::Composite { .. } => Err(CompileError::Unsupported(
                "OpSpecConstantOp on a composite constant".into(),
            )),
            Constant::Address { .. } => Err(CompileError::Unsupported(format!(
                "OpSpecConstantOp: arithmetic on the address %{id}"
            ))),
        }
    }

    /// `id` as an address: a module-scope variable or an address constant, as (variable,
    /// byte offset).
    pub(crate) fn address_operand(&self, id: Word) -> Option<(Word, i64)> {
        if self.globals.contains_key(&id) {
            return Some((id, 0));
        }
        match self.constants.get(&id) {
            Some(Constant::Address { base, offset, .. }) => Some((*base, *offset)),
            _ => None,
        }
    }

    /// The type of constant or module-scope variable `id`.
    fn const_type(&self, id: Word) -> Result<Word> {
        if let Some(g) = self.globals.get(&id) {
            return Ok(g.ptr_ty);
        }
        Ok(self.constant(id)?.ty())
    }

    /// A signed integer constant (an index).
    fn const_index(&self, id: Word) -> Result<i64> {
        let s = self.scalar_const(id)?;
        let w = self.width_of(s.ty)?;
        Ok(if w >= 64 || w == 0 {
            s.bits as i64
        } else {
            ((s.bits << (64 - w)) as i64) >> (64 - w)
        })
    }

    /// Byte offset of an (`Ptr`)`AccessChain` from its base pointer `base` with the index
    /// operands `indices` (the element index first for the `Ptr` forms).
    fn chain_offset(&self, base: Word, indices: &[Word], ptr_chain: bool) -> Result<(i64, Word)> {
        let Type::Pointer { mut pointee, .. } = self.ty(self.const_type(base)?)?.clone() else {
            return Err(CompileError::Invalid(
                "OpSpecConstantOp: access chain on a non-pointer".into(),
            ));
        };
        let overflow = || CompileError::Invalid("OpSpecConstantOp: offset overflows".into());
        let mut off = 0i64;
        let mut rest = indices;
        if ptr_chain {
            let Some((first, tail)) = indices.split_first() else {
                return Err(CompileError::Invalid(
                    "OpSpecConstantOp PtrAccessChain without an element index".into(),
                ));
            };
            let size = i64::try_from(layout(self, pointee)?.size).map_err(|_| overflow())?;
            off = self
                .const_index(*first)?
                .checked_mul(size)
                .ok_or_else(overflow)?;
            rest = tail;
        }
        for idx in rest {
            let i = self.const_index(*idx)?;
            let (step, next) = match self.ty(pointee)?.clone() {
                Type::Struct { members, .. } => {
                    let k = usize::try_from(i)
                        .ok()
                        .filter(|k| *k < members.len())
                        .ok_or_else(|| {
                            CompileError::Invalid(format!(
                                "OpSpecConstantOp: struct member {i} out of range"
                            ))
                        })?;
                    let offs = member_offsets(self, pointee)?;
                    (offs[k] as i64, members[k])
                }
                Type::Array { elem, .. }
                | Type::RuntimeArray { elem }
                | Type::Vector { elem, .. } => {
                    let size = i64::try_from(layout(self, elem)?.size).map_err(|_| overflow())?;
                    (i.checked_mul(size).ok_or_else(overflow)?, elem)
                }
                _ => {
                    return Err(CompileError::Invalid(
                        "OpSpecConstantOp: access chain into a scalar".into(),
                    ))
                }
            };
            off = off.checked_add(step).ok_or_else(overflow)?;
            pointee = next;
        }
        Ok((off, pointee))
    }

    /// The byte offset of clang-22's `PtrAccessChain`s in program-scope initialisers, or
    /// `None` for a well-formed chain. clang's own SPIR-V target writes LLVM's byte GEP
    /// `getelementptr i8, ptr @arr, i64 8` (for `&arr[2]`) as `PtrAccessChain %arr 0 8`
    /// typed `uchar*`, without the cast of `%arr` to `uchar*` that would make the 8 bytes:
    /// read by the rules, the chain selects `arr[8]`, a `uint`, which is not the result's
    /// type (`spirv-val` rejects it). So when a chain of one index after the element ends
    /// on another type than its result's pointee, the index counts elements of the
    /// result's pointee, as the producer meant.
    fn byte_chain_offset(
        &self,
        base: Word,
        indices: &[Word],
        ptr_chain: bool,
        rt: Word,
    ) -> Result<Option<i64>> {
        let (Type::Pointer { pointee: want, .. }, [first, index]) = (self.ty(rt)?, indices) else {
            return Ok(None);
        };
        if !ptr_chain {
            return Ok(None);
        }
        let (_, reached) = self.chain_offset(base, indices, ptr_chain)?;
        if reached == *want || self.ty(reached)? == self.ty(*want)? {
            return Ok(None);
        }
        let overflow = || CompileError::Invalid("OpSpecConstantOp: offset overflows".into());
        let Type::Pointer { pointee, .. } = self.ty(self.const_type(base)?)? else {
            return Ok(None);
        };
        let base_size = i64::try_from(layout(self, *pointee)?.size).map_err(|_| overflow())?;
        let step = i64::try_from(layout(self, *want)?.size).map_err(|_| overflow())?;
        let a = self.const_index(*first)?.checked_mul(base_size);
        let b = self.const_index(*index)?.checked_mul(step);
        Ok(Some(
            a.zip(b)
                .and_then(|(a, b)| a.checked_add(b))
                .ok_or_else(overflow)?,
        ))
    }

    /// How many bits of an address a value of type `ty` holds: 64 for a pointer, an
    /// integer's width.
    fn address_bits(&self, ty: Word) -> u32 {
        match self.ty(ty) {
            Ok(Type::Int { width, .. }) => (*width).min(64),
            _ => 64,
        }
    }

    /// Whether constant `id` is a null pointer.
    fn is_null_pointer(&self, id: Word) -> bool {
        matches!(self.constants.get(&id), Some(Constant::Null { ty }) if self.is_pointer(*ty))
    }

    /// Whether type `ty` is a pointer.
    fn is_pointer(&self, ty: Word) -> bool {
        matches!(self.ty(ty), Ok(Type::Pointer { .. }))
    }

    /// Fold an `OpSpecConstantOp` that computes an address, or `None` when `op` with these
    /// operands is not one.
    fn fold_address(&self, op: Op, inst: &Instruction, rt: Word) -> Result<Option<Constant>> {
        let operands: Vec<Word> = (1..inst.operands.len())
            .filter_map(|i| op_id(inst, i).ok())
            .collect();
        let Some(&first) = operands.first() else {
            return Ok(None);
        };
        // An address in an integer narrower than 64 bits is truncated where a function
        // uses it (clang-22 folds `(uint)&local_var` into a constant); an initialiser
        // cannot hold one (`module.rs`).
        let addr = |base: Word, offset: i64| -> Result<Option<Constant>> {
            Ok(Some(Constant::Address {
                ty: rt,
                base,
                offset,
            }))
        };
        match op {
            Op::Bitcast
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::ConvertPtrToU
            | Op::ConvertUToPtr
            | Op::UConvert
            | Op::SConvert => match self.address_operand(first) {
                // A truncated address widened again is no longer the address.
                Some(_) if self.address_bits(rt) > self.address_bits(self.const_type(first)?) => {
                    Err(CompileError::Unsupported(format!(
                        "OpSpecConstantOp {op:?} widens the truncated address %{first}"
                    )))
                }
                Some((base, offset)) => addr(base, offset),
                // A cast of a null pointer (clang-22: `GenericCastToPtr` of a generic
                // null in `global int *global pp[] = { …, 0, … }`) is the null of its type.
                None if self.is_null_pointer(first) && self.is_pointer(rt) => {
                    Ok(Some(Constant::Null { ty: rt }))
                }
                None => Ok(None),
            },
            Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::AccessChain
            | Op::InBoundsAccessChain => {
                let ptr_chain = matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
                let off = match self.byte_chain_offset(first, &operands[1..], ptr_chain, rt)? {
                    Some(off) => off,
                    None => self.chain_offset(first, &operands[1..], ptr_chain)?.0,
                };
                match self.address_operand(first) {
                    Some((base, offset)) => {
                        let offset = offset.checked_add(off).ok_or_else(|| {
                            CompileError::Invalid("OpSpecConstantOp: offset overflows".into())
                        })?;
                        addr(base, offset)
                    }
                    // An access chain on a null (or other constant) pointer: an integer.
                    None => {
                        let start = self.scalar_const(first)?.bits as i64;
                        Ok(Some(Constant::Scalar {
                            ty: rt,
                            bits: start.wrapping_add(off) as u64,
                        }))
                    }
                }
            }
            Op::IAdd | Op::ISub if operands.len() == 2 => {
                let (a, b) = (operands[0], operands[1]);
                match (self.address_operand(a), self.address_operand(b)) {
                    (Some((base, offset)), None) => {
                        let v = self.const_index(b)?;
                        let v = if op == Op::ISub { v.wrapping_neg() } else { v };
                        addr(base, offset.wrapping_add(v))
                    }
                    (None, Some((base, offset))) if op == Op::IAdd => {
                        addr(base, offset.wrapping_add(self.const_index(a)?))
                    }
                    (None, None) => Ok(None),
                    _ => Err(CompileError::Unsupported(format!(
                        "OpSpecConstantOp {op:?} of two addresses"
                    ))),
                }
            }
            _ => {
                if let Some(a) = operands
                    .iter()
                    .find(|o| self.address_operand(**o).is_some())
                {
                    return Err(CompileError::Unsupported(format!(
                        "OpSpecConstantOp {op:?} on the address %{a}"
                    )));
                }
                Ok(None)
            }
        }
    }

    /// Bit width of a scalar type (bool: 1).
    fn width_of(&self, ty: Word) -> Result<u32> {
        Ok(match self.scalar_type(ty)? {
            Type::Bool => 1,
            Type::Int { width, .. } | Type::Float { width } => width,
            _ => 0,
        })
    }

    /// Fold an `OpSpecConstantOp` the word pre-pass took from rspirv
    /// ([`super::words::RawSpecOp`]), rebuilt as the instruction rspirv would have made.
    pub(super) fn fold_raw_spec_op(
        &mut self,
        id: Word,
        raw: &super::words::RawSpecOp,
    ) -> Result<()> {
        let op = Op::from_u32(raw.op).ok_or_else(|| {
            CompileError::Invalid(format!(
                "OpSpecConstantOp with unknown operation {}",
                raw.op
            ))
        })?;
        let mut operands = vec![Operand::LiteralSpecConstantOpInteger(op)];
        for (k, w) in raw.operands.iter().enumerate() {
            operands.push(if op == Op::CompositeExtract && k > 0 {
                Operand::LiteralBit32(*w)
            } else {
                Operand::IdRef(*w)
            });
        }
        let inst = Instruction::new(
            Op::SpecConstantOp,
            Some(raw.result_type),
            Some(id),
            operands,
        );
        self.fold_spec_op(&inst)
    }

    /// Fold `OpSpecConstantOp` into `self.constants`.
    pub(super) fn fold_spec_op(&mut self, inst: &Instruction) -> Result<()> {
        let id = result_id(inst)?;
        let rt = result_type(inst)?;
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return Err(CompileError::Invalid(
                "OpSpecConstantOp without an operation".into(),
            ));
        };
        let op = *op;
        if op == Op::CompositeExtract {
            let mut c = op_id(inst, 1)?;
            for i in 2..inst.operands.len() {
                let k = op_lit(inst, i)? as usize;
                c = match self.constant(c)? {
                    Constant::Composite { parts, .. } => *parts.get(k).ok_or_else(|| {
                        CompileError::Invalid("OpSpecConstantOp: index out of range".into())
                    })?,
                    Constant::Null { .. } => {
                        self.constants.insert(id, Constant::Null { ty: rt });
                        return Ok(());
                    }
                    Constant::Scalar { .. } | Constant::Address { .. } => {
                        return Err(CompileError::Invalid(
                            "OpSpecConstantOp: extract from a scalar".into(),
                        ))
                    }
                };
            }
            let v = self.constant(c)?.clone();
            self.constants.insert(id, v);
            return Ok(());
        }
        if let Some(c) = self.fold_address(op, inst, rt)? {
            self.constants.insert(id, c);
            return Ok(());
        }
        let mut ops = Vec::new();
        for i in 1..inst.operands.len() {
            ops.push(self.scalar_const(op_id(inst, i)?)?);
        }
        let wd = self.width_of(rt)?;
        let bits = self.fold(op, &ops, rt, wd)?;
        let bits = if wd < 64 && wd > 0 {
            bits & ((1u64 << wd) - 1)
        } else {
            bits
        };
        self.constants.insert(id, Constant::Scalar { ty: rt, bits });
        Ok(())
    }

    fn fold(&self, op: Op, a: &[Sc], rt: Word, wd: u32) -> Result<u64> {
        let need = |n: usize| -> Result<()> {
            if a.len() < n {
                Err(CompileError::Invalid(format!(
                    "OpSpecConstantOp {op:?}: too few operands"
                )))
            } else {
                Ok(())
            }
        };
        need(1)?;
        let w0 = self.width_of(a[0].ty)?;
        let sx = |s: Sc, w: u32| -> i64 {
            if w >= 64 || w == 0 {
                s.bits as i64
            } else {
                ((s.bits << (64 - w)) as i64) >> (64 - w)
            }
        };
        let f = |s: Sc, w: u32| -> f64 {
            if w == 32 {
                f64::from(f32::from_bits(s.bits as u32))
            } else {
                f64::from_bits(s.bits)
            }
        };
        let fb = |x: f64| -> u64 {
            if wd == 32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            }
        };
        let b = |x: bool| u64::from(x);
        let sh = |s: Sc| (s.bits & 63) as u32;
        use Op::*;
        Ok(match op {
            SNegate => sx(a[0], w0).wrapping_neg() as u64,
            Not => !a[0].bits,
            LogicalNot => b(a[0].bits == 0),
            FNegate => fb(-f(a[0], w0)),
            SConvert => sx(a[0], w0) as u64,
            UConvert | Bitcast => a[0].bits,
            FConvert => fb(f(a[0], w0)),
            ConvertSToF => fb(sx(a[0], w0) as f64),
            ConvertUToF => fb(a[0].bits as f64),
            ConvertFToS => (f(a[0], w0) as i64) as u64,
            ConvertFToU => f(a[0], w0) as u64,
            Select => {
                need(3)?;
                if a[0].bits != 0 {
                    a[1].bits
                } else {
                    a[2].bits
                }
            }
            _ => {
                need(2)?;
                let (x, y) = (a[0], a[1]);
                let (xs, ys) = (sx(x, w0), sx(y, w0));
                match op {
                    IAdd => x.bits.wrapping_add(y.bits),
                    ISub => x.bits.wrapping_sub(y.bits),
                    IMul => x.bits.wrapping_mul(y.bits),
                    UDiv => x.bits.checked_div(y.bits).unwrap_or(0),
                    UMod => x.bits.checked_rem(y.bits).unwrap_or(0),
                    SDiv => xs.checked_div(ys).unwrap_or(0) as u64,
                    SRem => xs.checked_rem(ys).unwrap_or(0) as u64,
                    SMod => {
                        let r = xs.checked_rem(ys).unwrap_or(0);
                        (if r != 0 && (r < 0) != (ys < 0) {
                            r + ys
                        } else {
                            r
                        }) as u64
                    }
                    ShiftLeftLogical => x.bits.wrapping_shl(sh(y)),
                    ShiftRightLogical => x.bits.wrapping_shr(sh(y)),
                    ShiftRightArithmetic => xs.wrapping_shr(sh(y)) as u64,
                    BitwiseOr | LogicalOr => x.bits | y.bits,
                    BitwiseAnd | LogicalAnd => x.bits & y.bits,
                    BitwiseXor => x.bits ^ y.bits,
                    LogicalEqual | IEqual => b(x.bits == y.bits),
                    LogicalNotEqual | INotEqual => b(x.bits != y.bits),
                    ULessThan => b(x.bits < y.bits),
                    UGreaterThan => b(x.bits > y.bits),
                    ULessThanEqual => b(x.bits <= y.bits),
                    UGreaterThanEqual => b(x.bits >= y.bits),
                    SLessThan => b(xs < ys),
                    SGreaterThan => b(xs > ys),
                    SLessThanEqual => b(xs <= ys),
                    SGreaterThanEqual => b(xs >= ys),
                    FAdd => fb(f(x, w0) + f(y, w0)),
                    FSub => fb(f(x, w0) - f(y, w0)),
                    FMul => fb(f(x, w0) * f(y, w0)),
                    FDiv => fb(f(x, w0) / f(y, w0)),
                    FRem => fb(f(x, w0) % f(y, w0)),
                    _ => {
                        return Err(CompileError::UnsupportedOpcode {
                            opcode: format!("SpecConstantOp {op:?} (result %{rt})"),
                            function: "(module scope)".into(),
                        })
                    }
                }
            }
        })
    }
}
