//! Kernel descriptions for the runtime: argument kinds, argument-block layout, names,
//! type names and qualifiers, work-group size attributes.
//!
//! Argument block: one slot per parameter, in order, each aligned to
//! `max(8, natural alignment)`; pointers (buffers, `__local` offsets) take 8 bytes, values
//! their OpenCL size (`vec3` = 4 elements), structs passed by value (`FuncParamAttr ByVal`
//! pointers to `Function` storage) their C size.

use crate::image::ImageAccess;
use crate::layout::{align_up, layout};
use crate::spirv::{EntryPoint, Program, Type};
use crate::{AddressSpace, ArgKind, CompileError, KernelArg, KernelInfo};
use rspirv::spirv::{AccessQualifier, Decoration, FunctionParameterAttribute, StorageClass};

const QUAL_CONST: u64 = 1;
const QUAL_RESTRICT: u64 = 2;
const QUAL_VOLATILE: u64 = 4;
const QUAL_PIPE: u64 = 8;

/// The `n`-th comma-separated entry of llvm-spirv's `OpString "<key>.<kernel>.a,b,c,"`.
fn arg_string(p: &Program, key: &str, kernel: &str) -> Option<Vec<String>> {
    let prefix = format!("{key}.{kernel}.");
    p.strings.iter().find_map(|s| {
        s.strip_prefix(&prefix)
            .map(|rest| rest.split(',').map(str::to_string).collect())
    })
}

/// The function the entry-point wrapper calls (same `OpName`, same parameter count).
fn body_function<'p>(p: &'p Program, ep: &EntryPoint) -> Option<&'p crate::spirv::Function> {
    let wrapper = p.functions.get(&ep.func)?;
    p.functions
        .values()
        .find(|f| f.id != ep.func && f.name == ep.name && f.params.len() == wrapper.params.len())
}

pub fn kernel_info(p: &Program, ep: &EntryPoint) -> Result<KernelInfo, CompileError> {
    let f = p.function(ep.func)?;
    let body = body_function(p, ep);
    let type_names = arg_string(p, "kernel_arg_type", &ep.name);
    let quals = arg_string(p, "kernel_arg_type_qual", &ep.name);
    let mut args = Vec::new();
    let mut off = 0u64;
    for (i, param) in f.params.iter().enumerate() {
        let body_param = body.and_then(|b| b.params.get(i)).map(|bp| bp.id);
        let ids = [Some(param.id), body_param];
        let has_dec = |d: Decoration| ids.iter().flatten().any(|id| p.has_decoration(*id, d));
        let has_attr = |a: FunctionParameterAttribute| {
            ids.iter().flatten().any(|id| p.func_param_attr(*id, a))
        };
        let (kind, size, align) = match p.ty(param.ty)? {
            Type::Pointer { class, pointee } => {
                if *class == StorageClass::Function && has_attr(FunctionParameterAttribute::ByVal) {
                    let l = layout(p, *pointee)?;
                    (
                        ArgKind::Value {
                            size: l.size as usize,
                        },
                        l.size,
                        l.align,
                    )
                } else {
                    let kind = match class {
                        StorageClass::CrossWorkgroup => ArgKind::Buffer {
                            space: AddressSpace::Global,
                        },
                        StorageClass::UniformConstant => ArgKind::Buffer {
                            space: AddressSpace::Constant,
                        },
                        StorageClass::Workgroup => ArgKind::Local,
                        c => {
                            return Err(CompileError::Unsupported(format!(
                                "kernel {} argument {i}: pointer to {c:?} storage",
                                ep.name
                            )))
                        }
                    };
                    (kind, 8, 8)
                }
            }
            Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } | Type::Struct { .. } => {
                let l = layout(p, param.ty)?;
                (
                    ArgKind::Value {
                        size: l.size as usize,
                    },
                    l.size,
                    l.align,
                )
            }
            // The descriptor's address, the sampler's bits (`builtins/image.rs`).
            Type::Image(_) => (ArgKind::Image, 8, 8),
            Type::Sampler => (ArgKind::Sampler, 8, 8),
            t => {
                return Err(CompileError::Unsupported(format!(
                    "kernel {} argument {i} of type {t:?}",
                    ep.name
                )))
            }
        };
        off = align_up(off, align.max(8));
        let name = p
            .names
            .get(&param.id)
            .or_else(|| body_param.and_then(|b| p.names.get(&b)))
            .cloned()
            .unwrap_or_default();
        let type_name = type_names
            .as_ref()
            .and_then(|t| t.get(i).cloned())
            .unwrap_or_default();
        let type_qualifiers = match quals.as_ref().and_then(|q| q.get(i)) {
            Some(q) => q.split_whitespace().fold(0, |acc, w| {
                acc | match w {
                    "const" => QUAL_CONST,
                    "restrict" => QUAL_RESTRICT,
                    "volatile" => QUAL_VOLATILE,
                    "pipe" => QUAL_PIPE,
                    _ => 0,
                }
            }),
            None => {
                let mut q = 0;
                if has_dec(Decoration::Volatile) {
                    q |= QUAL_VOLATILE;
                }
                if has_attr(FunctionParameterAttribute::NoAlias) || has_dec(Decoration::Restrict) {
                    q |= QUAL_RESTRICT;
                }
                if kind
                    == (ArgKind::Buffer {
                        space: AddressSpace::Constant,
                    })
                {
                    q |= QUAL_CONST;
                }
                q
            }
        };
        let image_access = match p.ty(param.ty)? {
            Type::Image(t) => Some(match t.access {
                Some(AccessQualifier::WriteOnly) => ImageAccess::WriteOnly,
                Some(AccessQualifier::ReadWrite) => ImageAccess::ReadWrite,
                _ => ImageAccess::ReadOnly,
            }),
            _ => None,
        };
        args.push(KernelArg {
            name,
            type_name,
            kind,
            offset: off as usize,
            type_qualifiers,
            image_access,
        });
        off += size;
    }
    // As clang prints them (`CL_KERNEL_ATTRIBUTES`).
    let mut attrs = Vec::new();
    if let Some(name) = ep.vec_type_hint.and_then(vec_type_hint_name) {
        attrs.push(format!("vec_type_hint({name})"));
    }
    if let Some([x, y, z]) = ep.local_size {
        attrs.push(format!("reqd_work_group_size({x},{y},{z})"));
    }
    if let Some([x, y, z]) = ep.local_size_hint {
        attrs.push(format!("work_group_size_hint({x},{y},{z})"));
    }
    if let Some(n) = ep.sub_group_size {
        attrs.push(format!("intel_reqd_sub_group_size({n})"));
    }
    Ok(KernelInfo {
        name: ep.name.clone(),
        args,
        args_size: align_up(off, 8) as usize,
        reqd_work_group_size: ep.local_size,
        work_group_size_hint: ep.local_size_hint,
        reqd_sub_group_size: ep.sub_group_size,
        sub_group_size: ep.sub_group_size.unwrap_or(crate::DEFAULT_SUB_GROUP_SIZE),
        attributes: attrs.join(" "),
    })
}

/// The OpenCL C type of an `OpExecutionMode VecTypeHint` operand: the number of components
/// in the high 16 bits (0 or 1: a scalar), the element type in the low 16 bits (0–3: 8- to
/// 64-bit integer, 4–6: 16- to 64-bit float; SPIR-V spec, Execution Mode). SPIR-V keeps no
/// signedness, so integers print unsigned (`vec_type_hint(int4)` reads back as `uint4`).
/// `None` for an encoding the spec does not define.
pub(crate) fn vec_type_hint_name(hint: u32) -> Option<String> {
    let elem = match hint & 0xffff {
        0 => "uchar",
        1 => "ushort",
        2 => "uint",
        3 => "ulong",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => return None,
    };
    match hint >> 16 {
        0 | 1 => Some(elem.to_string()),
        n @ (2 | 3 | 4 | 8 | 16) => Some(format!("{elem}{n}")),
        _ => None,
    }
}
