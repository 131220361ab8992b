# cost profile measured by innosim calibrate
# goos: linux
# goarch: amd64
# cpu: Intel(R) Xeon(R) Processor
# goversion: go1.26.8
# gomaxprocs: 2
# cpus: 2
# kernel: 6.18.44-fc-v1300
# cpu-quota: none
# mitigations: 3 mitigated, 2 vulnerable, 14 not affected
# vuln-gather_data_sampling: Not affected
# vuln-ghostwrite: Not affected
# vuln-indirect_target_selection: Mitigation: Aligned branch/return thunks
# vuln-itlb_multihit: Not affected
# vuln-l1tf: Not affected
# vuln-mds: Not affected
# vuln-meltdown: Not affected
# vuln-mmio_stale_data: Not affected
# vuln-old_microcode: Not affected
# vuln-reg_file_data_sampling: Not affected
# vuln-retbleed: Vulnerable
# vuln-spec_rstack_overflow: Not affected
# vuln-spec_store_bypass: Vulnerable
# vuln-spectre_v1: Mitigation: usercopy/swapgs barriers and __user pointer sanitization
# vuln-spectre_v2: Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline
# vuln-srbds: Not affected
# vuln-tsa: Not affected
# vuln-tsx_async_abort: Not affected
# vuln-vmscape: Not affected
# goexperiment: none
# godebug: none
# measured goroutine handoff: 250ns (IQR 226ns..266ns, n=15)
# measured locked-thread handoff: 23.797µs (IQR 22.809µs..24.995µs, n=15)
# measured futex round trip: 3.408µs (IQR 2.888µs..3.434µs, n=15)
# measured wake preempt: 0.78 (IQR 0.78..0.79, n=15)
# measured futex loaded handoff: 1.748µs (IQR 1.645µs..1.853µs, n=15)
# measured futex wake call: 10.027µs (IQR 9.826µs..11.181µs, n=15)
# measured futex remote wake: 26.47µs (IQR 24.336µs..31.984µs, n=15)
# measured system call: 89ns (IQR 89ns..89ns, n=15)
# measured context switch: 1.963µs (IQR 1.458µs..2.064µs, n=15)
# measured mutex handoff: 56ns (IQR 50ns..59ns, n=15)
# measured sysmon tick: 104.073µs (IQR 98.888µs..106.191µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.619µs (IQR 1.578µs..1.658µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 3.272µs (IQR 2.707µs..3.646µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 3.48µs (IQR 3.242µs..4.494µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 9.28µs (IQR 8.636µs..9.782µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 1.908µs (IQR 1.8µs..2.012µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 2.989µs (IQR 2.825µs..3.795µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 5.81µs (IQR 5.18µs..6.356µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 13.27µs (IQR 10.657µs..14.008µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 3.077µs (IQR 3.035µs..3.151µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 5.456µs (IQR 4.862µs..5.861µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 10.172µs (IQR 9.321µs..10.346µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 18.946µs (IQR 16.907µs..21.503µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.57µs
syscall = 89ns
syscall_socket = 0s
syscall_setup = 0s
set_priority = 300ns
futex_hold = 200ns
futex_growth = 0.5
futex_walk = 0
spin_round = 500ns
io_service = 100µs
line_transfer = 100ns
line_transfer_remote = 200ns
runqueue_hold = 0s
futex_wake_call = 10.027µs
futex_wake = 26.47µs
thread_handoff = 23.797µs
mutex_handoff = 56ns
wake_preempt = 0.7817371937639199
sysmon_tick = 104.073µs
switch_footprint = 129536
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 1ns
refill_memory = 9ns
