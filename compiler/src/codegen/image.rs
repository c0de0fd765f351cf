//! Images and samplers: `OpImageRead`, `OpImageWrite`, `OpSampledImage`,
//! `OpImageSampleExplicitLod`, `OpImageQuerySize(Lod)`, `OpImageQueryFormat/Order`.
//!
//! An image value is the address of its descriptor (`builtins::image::ImageDescriptor`), a
//! sampler its bits, a sampled image the pair. Reads, writes and sampling call the image
//! library (`builtins/image.rs`) with the coordinates and a 16-byte stack slot for the
//! colour (four 32-bit lanes: float bits or integers); queries load the descriptor's
//! fields inline. Every image has one level: the `Lod` operands are ignored.

use super::{FnTx, Result, Val};
use crate::builtins::image::ImageDescriptor;
use crate::spirv::{op_id, result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value,
};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

/// Whether `op` is one of the image instructions [`FnTx::image`] lowers.
pub fn is_image(op: Op) -> bool {
    matches!(
        op,
        Op::ImageRead
            | Op::ImageWrite
            | Op::SampledImage
            | Op::ImageSampleExplicitLod
            | Op::ImageQuerySizeLod
            | Op::ImageQuerySize
            | Op::ImageQueryFormat
            | Op::ImageQueryOrder
    )
}

fn builtin(name: &str) -> Result<crate::builtins::Builtin> {
    crate::builtins::by_name(name)
        .ok_or_else(|| CompileError::Codegen(format!("built-in {name} is missing")))
}

impl FnTx<'_, '_, '_> {
    pub(super) fn image(&mut self, inst: &Instruction) -> Result<()> {
        match inst.class.opcode {
            Op::ImageRead => {
                let image = self.scalar(op_id(inst, 0)?)?;
                let c = self.int_coords(op_id(inst, 1)?)?;
                let slot = self.color_slot();
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                self.call_builtin(
                    &builtin("ferrite_image_read")?,
                    &[image, c[0], c[1], c[2], out],
                )?;
                self.color_result(inst, slot)
            }
            Op::ImageWrite => {
                let image = self.scalar(op_id(inst, 0)?)?;
                let c = self.int_coords(op_id(inst, 1)?)?;
                let texel = self.val(op_id(inst, 2)?)?.flat();
                let slot = self.color_slot();
                for (k, v) in texel.iter().take(4).enumerate() {
                    let t = self.value_type(*v);
                    if t != types::F32 && t != types::I32 {
                        return Err(CompileError::Unsupported(format!(
                            "image writes of {t} components"
                        )));
                    }
                    self.b.ins().stack_store(types::I64, *v, slot, 4 * k as i32);
                }
                let at = self.b.ins().stack_addr(types::I64, slot, 0);
                self.call_builtin(
                    &builtin("ferrite_image_write")?,
                    &[image, c[0], c[1], c[2], at],
                )?;
                Ok(())
            }
            Op::SampledImage => {
                let image = self.scalar(op_id(inst, 0)?)?;
                let sampler = self.scalar(op_id(inst, 1)?)?;
                self.set_result(inst, Val::C(vec![Val::S(image), Val::S(sampler)]))
            }
            Op::ImageSampleExplicitLod => {
                let pair = self.val(op_id(inst, 0)?)?.flat();
                let [image, sampler] = pair[..] else {
                    return Err(CompileError::Invalid(
                        "OpImageSampleExplicitLod without a sampled image".into(),
                    ));
                };
                let c = self.float_coords(op_id(inst, 1)?)?;
                let slot = self.color_slot();
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                self.call_builtin(
                    &builtin("ferrite_image_sample")?,
                    &[image, sampler, c[0], c[1], c[2], out],
                )?;
                self.color_result(inst, slot)
            }
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                let image = self.scalar(op_id(inst, 0)?)?;
                let rt = result_type(inst)?;
                let n = match self.p.ty(rt)? {
                    Type::Vector { count, .. } => *count as usize,
                    _ => 1,
                };
                let mut out = Vec::new();
                for k in 0..n.min(3) {
                    let off = ImageDescriptor::OFFSET_SIZE + 4 * k as i32;
                    let v = self.load_field(image, off, rt)?;
                    out.push(v);
                }
                let v = self.unflatten(rt, out)?;
                self.set_result(inst, v)
            }
            Op::ImageQueryFormat | Op::ImageQueryOrder => {
                let image = self.scalar(op_id(inst, 0)?)?;
                let off = if inst.class.opcode == Op::ImageQueryFormat {
                    ImageDescriptor::OFFSET_CHANNEL_TYPE
                } else {
                    ImageDescriptor::OFFSET_ORDER
                };
                let rt = result_type(inst)?;
                let v = self.load_field(image, off, rt)?;
                self.set_result(inst, Val::S(v))
            }
            _ => Err(self.unsupported(inst)),
        }
    }

    /// A 16-byte slot for one colour.
    fn color_slot(&mut self) -> StackSlot {
        self.b
            .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4))
    }

    /// The colour in `slot` as `inst`'s result: a 4-vector of 32-bit floats or integers,
    /// or the first component alone (depth images).
    fn color_result(&mut self, inst: &Instruction, slot: StackSlot) -> Result<()> {
        let rt = result_type(inst)?;
        let (elem, n) = match self.p.ty(rt)? {
            Type::Vector { elem, count } => (*elem, *count as usize),
            _ => (rt, 1),
        };
        // `read_imageh`: the float colour rounded to half (a half lives in an `f32`).
        let (t, half) = match self.p.ty(elem)? {
            Type::Float { width: 32 } => (types::F32, false),
            Type::Float { width: 16 } => (types::F32, true),
            Type::Int { width: 32, .. } => (types::I32, false),
            t => {
                return Err(CompileError::Unsupported(format!(
                    "image reads returning {t:?}"
                )))
            }
        };
        let vals: Vec<Value> = (0..n.min(4))
            .map(|k| {
                let v = self.b.ins().stack_load(types::I64, t, slot, 4 * k as i32);
                if half {
                    super::half::round(&mut self.b, v)
                } else {
                    v
                }
            })
            .collect();
        let v = self.unflatten(rt, vals)?;
        self.set_result(inst, v)
    }

    /// A descriptor's 32-bit field at `off`, as the (element) type of `rt`.
    fn load_field(&mut self, image: Value, off: i32, rt: Word) -> Result<Value> {
        let v = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::trusted(), image, off);
        let elem = super::elem_of(self.p, rt)?;
        Ok(match super::clif_scalar(self.p, elem)? {
            types::I64 => self.b.ins().uextend(types::I64, v),
            types::I32 => v,
            t => {
                return Err(CompileError::Unsupported(format!(
                    "image queries returning {t}"
                )))
            }
        })
    }

    /// Up to three integer coordinates as `i32` (missing ones 0).
    fn int_coords(&mut self, id: Word) -> Result<[Value; 3]> {
        let comps = self.val(id)?.flat();
        let mut out = Vec::new();
        for v in comps.into_iter().take(3) {
            out.push(match self.value_type(v) {
                types::I32 => v,
                types::I64 => self.b.ins().ireduce(types::I32, v),
                types::I8 | types::I16 => self.b.ins().sextend(types::I32, v),
                t => {
                    return Err(CompileError::Unsupported(format!(
                        "image coordinates of type {t}"
                    )))
                }
            });
        }
        while out.len() < 3 {
            out.push(self.b.ins().iconst(types::I32, 0));
        }
        Ok([out[0], out[1], out[2]])
    }

    /// Up to three coordinates as `f32` (integer ones converted, missing ones 0).
    fn float_coords(&mut self, id: Word) -> Result<[Value; 3]> {
        let comps = self.val(id)?.flat();
        let mut out = Vec::new();
        for v in comps.into_iter().take(3) {
            out.push(match self.value_type(v) {
                types::F32 => v,
                types::I32 | types::I64 => self.b.ins().fcvt_from_sint(types::F32, v),
                t => {
                    return Err(CompileError::Unsupported(format!(
                        "image coordinates of type {t}"
                    )))
                }
            });
        }
        while out.len() < 3 {
            out.push(self.b.ins().f32const(0.0));
        }
        Ok([out[0], out[1], out[2]])
    }
}
