//! Images across the lanes: the instructions `codegen/image.rs` lowers for one
//! work-item, for all lanes at once. An image or sampler is uniform (a kernel argument or
//! a constant sampler); reads, writes and sampled reads make one call to the image
//! library's lane entry points (`builtins/image.rs`, `ferrite_image_*_lanes`) per vector
//! of lanes, with the coordinates and colours in a stack slot, component-major, so that
//! whole vectors are stored and loaded around the call. When every coordinate (and a
//! write's colour) is uniform, the call covers one lane and the result is uniform.
//!
//! Under a mask (`linear.rs`), a read or a sampled read runs for every lane: the library
//! keeps any coordinate in bounds (border colour outside the image), so an inactive lane
//! costs time, not safety. A write passes the active lanes as a bit mask and writes those
//! alone, in lane order, as the scalar loop would.

use super::{refuse, vec_of, VTx, V};
use crate::builtins::image::ImageDescriptor;
use crate::codegen::Result;
use crate::spirv::{op_id, result_type, Type};
use cranelift_codegen::ir::{self, types, InstBuilder, MemFlagsData, StackSlotData, Value};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

/// A stack slot of coordinates or colours: its address and how many lanes it holds.
struct Lanes {
    slot: ir::StackSlot,
    n: usize,
}

impl VTx<'_, '_, '_, '_> {
    pub(super) fn image(&mut self, inst: &Instruction) -> Result<()> {
        match inst.class.opcode {
            Op::SampledImage => {
                let image = self.uniform_handle(op_id(inst, 0)?)?;
                let sampler = self.uniform_handle(op_id(inst, 1)?)?;
                self.set(inst, types::I64, V::Comp(vec![V::U(image), V::U(sampler)]))
            }
            Op::ImageRead => {
                let image = self.uniform_handle(op_id(inst, 0)?)?;
                let coords = self.image_coords(op_id(inst, 1)?, false)?;
                let out = self.color_slot(coords.n);
                let args = [
                    image,
                    self.slot_addr(&coords),
                    self.slot_addr(&out),
                    self.lane_count(&out),
                ];
                self.call_image("ferrite_image_read_lanes", &args)?;
                self.color_result(inst, &out)
            }
            Op::ImageSampleExplicitLod => {
                let pair = match self.val(op_id(inst, 0)?)? {
                    V::Comp(c) => c,
                    _ => return Err(refuse("a sampled image that is not one")),
                };
                let (image, sampler) = match pair[..] {
                    [V::U(i), V::U(s)] => (i, s),
                    _ => return Err(refuse("a varying sampled image")),
                };
                let coords = self.image_coords(op_id(inst, 1)?, true)?;
                let out = self.color_slot(coords.n);
                let args = [
                    image,
                    sampler,
                    self.slot_addr(&coords),
                    self.slot_addr(&out),
                    self.lane_count(&out),
                ];
                self.call_image("ferrite_image_sample_lanes", &args)?;
                self.color_result(inst, &out)
            }
            Op::ImageWrite => self.image_write(inst),
            Op::ImageQuerySizeLod | Op::ImageQuerySize => {
                let image = self.uniform_handle(op_id(inst, 0)?)?;
                let rt = result_type(inst)?;
                let (elem, count) = self.vector_type(rt)?;
                let t = super::scalar_ty(self.p, elem)?;
                let comps = (0..count)
                    .map(|k| {
                        Ok(V::U(if k < 3 {
                            let off = ImageDescriptor::OFFSET_SIZE + 4 * k as i32;
                            self.descriptor_field(image, off, t)?
                        } else {
                            super::zero_of(self.b, t)
                        }))
                    })
                    .collect::<Result<Vec<V>>>()?;
                let v = match count {
                    1 => comps
                        .into_iter()
                        .next()
                        .ok_or_else(|| refuse("size query"))?,
                    _ => V::Comp(comps),
                };
                self.set(inst, t, v)
            }
            Op::ImageQueryFormat | Op::ImageQueryOrder => {
                let image = self.uniform_handle(op_id(inst, 0)?)?;
                let off = if inst.class.opcode == Op::ImageQueryFormat {
                    ImageDescriptor::OFFSET_CHANNEL_TYPE
                } else {
                    ImageDescriptor::OFFSET_ORDER
                };
                let t = super::scalar_ty(self.p, result_type(inst)?)?;
                let v = self.descriptor_field(image, off, t)?;
                self.set(inst, t, V::U(v))
            }
            op => Err(refuse(format!("Op{op:?}"))),
        }
    }

    /// `write_image*`: the lanes active in the block (all of them outside masked mode).
    fn image_write(&mut self, inst: &Instruction) -> Result<()> {
        let image = self.uniform_handle(op_id(inst, 0)?)?;
        let texel_id = op_id(inst, 2)?;
        let t = self.ty(texel_id)?;
        if t != types::F32 && t != types::I32 {
            return Err(refuse(format!("image writes of {t} components")));
        }
        let texel = match self.val(texel_id)? {
            V::Comp(c) => c,
            v => vec![v],
        };
        // One lane when the pixel and the colour are both uniform; a varying colour to a
        // uniform pixel is written by every lane (the last one wins).
        let coord_id = op_id(inst, 1)?;
        let n = match self.uniform(coord_id)? && texel.iter().all(|c| matches!(c, V::U(_))) {
            true => 1,
            false => self.w,
        };
        let coords = self.image_coords_n(coord_id, false, n)?;
        let out = self.color_slot(coords.n);
        for (k, c) in texel.iter().take(4).enumerate() {
            self.spill(c, t, &out, k)?;
        }
        let active = match (self.mask, coords.n) {
            (None, n) => self.b.ins().iconst(types::I64, ((1u128 << n) - 1) as i64),
            (Some(m), 1) => {
                let any = self.b.ins().vany_true(m);
                self.b.ins().uextend(types::I64, any)
            }
            (Some(m), _) => {
                let bits = self.b.ins().vhigh_bits(types::I32, m);
                self.b.ins().uextend(types::I64, bits)
            }
        };
        let args = [
            image,
            self.slot_addr(&coords),
            self.slot_addr(&out),
            self.lane_count(&out),
            active,
        ];
        self.call_image("ferrite_image_write_lanes", &args)
    }

    /// An image or sampler operand, which must be the same for every lane.
    fn uniform_handle(&mut self, id: Word) -> Result<Value> {
        match self.val(id)? {
            V::U(x) => Ok(x),
            _ => Err(refuse("a varying image or sampler")),
        }
    }

    /// Coordinates `id` (up to three components; missing ones 0) in a new slot: `i32`,
    /// or `f32` when `float` (integers converted); one lane when all are uniform.
    fn image_coords(&mut self, id: Word, float: bool) -> Result<Lanes> {
        let n = if self.uniform(id)? { 1 } else { self.w };
        self.image_coords_n(id, float, n)
    }

    /// Whether every component of `id` is the same in every lane.
    fn uniform(&mut self, id: Word) -> Result<bool> {
        Ok(match self.val(id)? {
            V::Comp(c) => c.iter().all(|x| matches!(x, V::U(_))),
            v => matches!(v, V::U(_)),
        })
    }

    fn image_coords_n(&mut self, id: Word, float: bool, n: usize) -> Result<Lanes> {
        let st = self.ty(id)?;
        let comps = match self.val(id)? {
            V::Comp(c) => c,
            v => vec![v],
        };
        let slot = self.slot(3 * n);
        let out = Lanes { slot, n };
        let dt = if float { types::F32 } else { types::I32 };
        for c in 0..3 {
            let x = match comps.get(c) {
                None => V::U(super::zero_of(self.b, dt)),
                // The same conversions as `codegen/image.rs`.
                Some(x) if st == dt => x.clone(),
                Some(x) => {
                    let ok = match float {
                        true => st == types::I32 || st == types::I64,
                        false => matches!(st, types::I64 | types::I16 | types::I8),
                    };
                    if !ok {
                        return Err(refuse(format!("image coordinates of type {st}")));
                    }
                    self.per_lane(x, dt, move |b, v| match (float, st) {
                        (true, _) => b.ins().fcvt_from_sint(types::F32, v),
                        (false, types::I64) => b.ins().ireduce(types::I32, v),
                        (false, _) => b.ins().sextend(types::I32, v),
                    })?
                }
            };
            self.spill(&x, dt, &out, c)?;
        }
        Ok(out)
    }

    /// A slot of four colour components for `n` lanes.
    fn color_slot(&mut self, n: usize) -> Lanes {
        let slot = self.slot(4 * n);
        Lanes { slot, n }
    }

    fn slot(&mut self, words: usize) -> ir::StackSlot {
        self.b.create_sized_stack_slot(StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            4 * words as u32,
            4,
        ))
    }

    fn slot_addr(&mut self, l: &Lanes) -> Value {
        self.b.ins().stack_addr(types::I64, l.slot, 0)
    }

    fn lane_count(&mut self, l: &Lanes) -> Value {
        self.b.ins().iconst(types::I32, l.n as i64)
    }

    /// Component `c` of every lane of `l`: `v` (scalar type `t`, 32-bit).
    fn spill(&mut self, v: &V, t: ir::Type, l: &Lanes, c: usize) -> Result<()> {
        let row = 4 * (c * l.n) as i32;
        if l.n == 1 {
            let x = self.lane(v, 0)?;
            self.b.ins().stack_store(types::I64, x, l.slot, row);
            return Ok(());
        }
        for (j, p) in self.vector(v, t)?.into_iter().enumerate() {
            self.b
                .ins()
                .stack_store(types::I64, p, l.slot, row + 16 * j as i32);
        }
        Ok(())
    }

    /// The colour in `l` as `inst`'s result: a 4-vector of 32-bit floats or integers
    /// (halves rounded), or the first component alone (depth images).
    fn color_result(&mut self, inst: &Instruction, l: &Lanes) -> Result<()> {
        let rt = result_type(inst)?;
        let (elem, count) = self.vector_type(rt)?;
        let (t, half) = match self.p.ty(elem)? {
            Type::Float { width: 32 } => (types::F32, false),
            Type::Float { width: 16 } => (types::F32, true),
            Type::Int { width: 32, .. } => (types::I32, false),
            t => return Err(refuse(format!("image reads returning {t:?}"))),
        };
        let vt = vec_of(t).ok_or_else(|| refuse("image colour"))?;
        let mut comps = Vec::new();
        for c in 0..count.min(4) {
            let row = 4 * (c * l.n) as i32;
            let v = if l.n == 1 {
                V::U(self.b.ins().stack_load(types::I64, t, l.slot, row))
            } else {
                V::Vec(
                    (0..l.n / 4)
                        .map(|j| {
                            let off = row + 16 * j as i32;
                            self.b.ins().stack_load(types::I64, vt, l.slot, off)
                        })
                        .collect(),
                )
            };
            comps.push(if half { self.half_round(v)? } else { v });
        }
        let v = match comps.len() {
            1 => comps.pop().ok_or_else(|| refuse("image colour"))?,
            _ => V::Comp(comps),
        };
        self.set(inst, t, v)
    }

    /// A descriptor's 32-bit field at `off`, as `t` (`i32`, or `i64` zero-extended).
    fn descriptor_field(&mut self, image: Value, off: i32, t: ir::Type) -> Result<Value> {
        let v = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::trusted(), image, off);
        match t {
            types::I64 => Ok(self.b.ins().uextend(types::I64, v)),
            types::I32 => Ok(v),
            t => Err(refuse(format!("image queries returning {t}"))),
        }
    }

    fn call_image(&mut self, name: &str, args: &[Value]) -> Result<()> {
        let bi = crate::builtins::by_name(name)
            .ok_or_else(|| refuse(format!("built-in {name} is missing")))?;
        let f = self.builtin_fref(&bi)?;
        self.b.ins().call(f, args);
        Ok(())
    }
}
