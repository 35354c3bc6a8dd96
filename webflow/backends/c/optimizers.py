"""C signatures of the fused optimizer updates (webflow/wasm/optimizers.c), for c_library.function().

Arguments follow the op's inputs, then attrs, then the new state buffers (which may be the input
buffers themselves), then the element count; <t> is f32 or f64 and scalars are passed as floats.
    wf_apply_gradientdescent_<t>(var, alpha, delta, var_out, n)
    wf_apply_momentum_<t>(var, accum, lr, grad, momentum, use_nesterov, var_out, accum_out, n)
    wf_apply_adam_<t>(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov,
                      var_out, m_out, v_out, n)
    wf_apply_adagrad_<t>(var, accum, lr, grad, update_slots, var_out, accum_out, n)
    wf_apply_rmsprop_<t>(var, ms, mom, lr, rho, momentum, epsilon, grad, var_out, ms_out, mom_out, n)
    wf_apply_centeredrmsprop_<t>(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                                 var_out, mg_out, ms_out, mom_out, n)
    wf_apply_adadelta_<t>(var, accum, accum_update, lr, rho, epsilon, grad, var_out, accum_out, accum_update_out, n)
"""

from __future__ import annotations

from webflow.backends.c.library import F32, F64, INT, PTR, SIZE, VOID, declare

for _suffix, _real in (("f32", F32), ("f64", F64)):
    declare(f"wf_apply_gradientdescent_{_suffix}", [PTR, _real, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_momentum_{_suffix}", [PTR, PTR, _real, PTR, _real, INT, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adam_{_suffix}",
            [PTR, PTR, PTR, _real, _real, _real, _real, _real, _real, PTR, INT, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adagrad_{_suffix}", [PTR, PTR, _real, PTR, INT, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_rmsprop_{_suffix}",
            [PTR, PTR, PTR, _real, _real, _real, _real, PTR, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_centeredrmsprop_{_suffix}",
            [PTR, PTR, PTR, PTR, _real, _real, _real, _real, PTR, PTR, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adadelta_{_suffix}", [PTR, PTR, PTR, _real, _real, _real, PTR, PTR, PTR, PTR, SIZE], VOID)
