//! `OpReadClockKHR` (`SPV_KHR_shader_clock`; OpenCL C `cl_khr_kernel_clock`'s
//! `clock_read_device`, `_work_group`, `_sub_group` and their `_hilo` forms): the
//! nanoseconds of the process's monotonic clock (`builtins::clock_now`), one clock for
//! every scope, since all of a device's work-items run on the host's cores and the
//! operating system keeps one monotonic clock across them. A 64-bit result is the count,
//! a `uint2` one its low and high words.

use super::{FnTx, Result, Val};
use crate::spirv::{result_type, Type};
use crate::CompileError;
use cranelift_codegen::ir::{types, InstBuilder};
use rspirv::dr::Instruction;

impl FnTx<'_, '_, '_> {
    pub(super) fn read_clock(&mut self, inst: &Instruction) -> Result<()> {
        let now = self.call_named("ferrite_clock", &[])?;
        let v = match self.p.ty(result_type(inst)?)? {
            Type::Int { width: 64, .. } => Val::S(now),
            Type::Vector { count: 2, elem }
                if matches!(self.p.ty(*elem)?, Type::Int { width: 32, .. }) =>
            {
                let lo = self.b.ins().ireduce(types::I32, now);
                let high = self.b.ins().ushr_imm_u(now, 32);
                let hi = self.b.ins().ireduce(types::I32, high);
                Val::C(vec![Val::S(lo), Val::S(hi)])
            }
            t => {
                return Err(CompileError::Invalid(format!(
                    "OpReadClockKHR of a {t:?} (a 64-bit integer or two 32-bit ones)"
                )))
            }
        };
        self.set_result(inst, v)
    }
}
