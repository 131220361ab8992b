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
# measured goroutine handoff: 179ns (IQR 176ns..216ns, n=15)
# measured locked-thread handoff: 31.466µs (IQR 29.536µs..41.423µs, n=15)
# measured futex round trip: 2.334µs (IQR 2.298µs..2.365µs, n=15)
# measured wake preempt: 0.78 (IQR 0.77..0.79, n=15)
# measured futex loaded handoff: 2.165µs (IQR 2.011µs..2.329µs, n=15)
# measured futex wake call: 11.466µs (IQR 11.206µs..12.316µs, n=15)
# measured futex remote wake: 28.825µs (IQR 25.997µs..33.583µs, n=15)
# measured system call: 90ns (IQR 90ns..99ns, n=15)
# measured context switch: 2.132µs (IQR 1.55µs..3.38µs, n=15)
# measured mutex handoff: 57ns (IQR 55ns..61ns, n=15)
# measured sysmon tick: 114.286µs (IQR 111.345µs..115.773µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 11.238µs (IQR 1.688µs..35.938µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 26.18µs (IQR 21.126µs..28.54µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 26.943µs (IQR 24.837µs..27.743µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 36.51µs (IQR 32.618µs..39.244µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 10.71µs (IQR 2.265µs..25.92µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 25.277µs (IQR 20.164µs..29.317µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 28.712µs (IQR 23.526µs..32.902µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 33.276µs (IQR 32.542µs..38.166µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 20.649µs (IQR 2.753µs..28.044µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 20.976µs (IQR 19.127µs..24.808µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 28.135µs (IQR 26.158µs..30.706µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 38.743µs (IQR 34.88µs..40.891µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.985µs
syscall = 90ns
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
futex_wake_call = 11.466µs
futex_wake = 28.825µs
thread_handoff = 31.466µs
mutex_handoff = 57ns
wake_preempt = 0.7801513128615933
sysmon_tick = 114.286µs
switch_footprint = 262144
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 3ns
refill_memory = 6ns
