//! Sizes, alignments and member offsets of SPIR-V types in memory, OpenCL C rules:
//! scalars their natural size (arbitrary-width integers rounded up to a power-of-two byte
//! count), vectors `n` elements with `vec3` the size and alignment of `vec4`, arrays dense,
//! structs natural C layout unless decorated `CPacked` (then no padding, alignment 1),
//! pointers 8 bytes (Physical64).

use crate::spirv::{Program, Type};
use crate::CompileError;
use rspirv::spirv::Word;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
}

fn overflow() -> CompileError {
    CompileError::Invalid("type too large".into())
}

pub fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

/// Byte size of an integer of `width` bits in memory.
pub fn int_bytes(width: u32) -> u64 {
    u64::from(width.div_ceil(8)).next_power_of_two()
}

pub fn layout(p: &Program, ty: Word) -> Result<Layout, CompileError> {
    layout_depth(p, ty, 0)
}

fn layout_depth(p: &Program, ty: Word, depth: u32) -> Result<Layout, CompileError> {
    if depth > 64 {
        return Err(CompileError::Invalid("type nesting too deep".into()));
    }
    Ok(match p.ty(ty)? {
        Type::Bool => Layout { size: 1, align: 1 },
        Type::Int { width, .. } => {
            let s = int_bytes(*width);
            Layout { size: s, align: s }
        }
        Type::Float { width } => {
            let s = u64::from(*width / 8);
            Layout { size: s, align: s }
        }
        Type::Pointer { .. } | Type::Opaque("event_t") | Type::Image(_) | Type::Sampler => {
            Layout { size: 8, align: 8 }
        }
        Type::Vector { elem, count } => {
            let e = layout_depth(p, *elem, depth + 1)?;
            // 3 takes the room of 4 (OpenCL C); clang-22's odd sizes (5, 6, 7, 9 … 15,
            // see `spirv.rs`) that of the next power of two, as LLVM allocates them.
            let n = u64::from(*count).next_power_of_two();
            let s = e.size * n;
            Layout { size: s, align: s }
        }
        Type::Array { elem, len } => {
            let e = layout_depth(p, *elem, depth + 1)?;
            Layout {
                size: e.size.checked_mul(*len).ok_or_else(overflow)?,
                align: e.align,
            }
        }
        Type::Struct { members, packed } => {
            let mut off = 0u64;
            let mut align = 1u64;
            for m in members {
                let l = layout_depth(p, *m, depth + 1)?;
                if !packed {
                    off = align_up(off, l.align);
                    align = align.max(l.align);
                }
                off = off.checked_add(l.size).ok_or_else(overflow)?;
            }
            Layout {
                size: align_up(off, align),
                align,
            }
        }
        t => {
            return Err(CompileError::Unsupported(format!(
                "memory layout of type {t:?} (%{ty})"
            )))
        }
    })
}

/// Byte offsets of a struct's members.
pub fn member_offsets(p: &Program, ty: Word) -> Result<Vec<u64>, CompileError> {
    let Type::Struct { members, packed } = p.ty(ty)? else {
        return Err(CompileError::InvalidId {
            id: ty,
            expected: "struct type",
        });
    };
    let mut off = 0u64;
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        let l = layout(p, *m)?;
        if !packed {
            off = align_up(off, l.align);
        }
        out.push(off);
        off = off.checked_add(l.size).ok_or_else(overflow)?;
    }
    Ok(out)
}

/// Stride between consecutive elements of an array or vector type's elements.
pub fn elem_stride(p: &Program, elem: Word) -> Result<u64, CompileError> {
    Ok(layout(p, elem)?.size)
}
