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
# measured goroutine handoff: 204ns (IQR 179ns..234ns, n=15)
# measured locked-thread handoff: 30.43µs (IQR 26.691µs..34.527µs, n=15)
# measured futex round trip: 2.359µs (IQR 2.299µs..2.419µs, n=15)
# measured wake preempt: 0.78 (IQR 0.78..0.78, n=15)
# measured futex loaded handoff: 1.607µs (IQR 1.51µs..1.697µs, n=15)
# measured futex wake call: 11.567µs (IQR 10.584µs..12.294µs, n=15)
# measured futex remote wake: 24.65µs (IQR 24.416µs..26.259µs, n=15)
# measured system call: 89ns (IQR 89ns..89ns, n=15)
# measured context switch: 2.019µs (IQR 1.474µs..21.251µs, n=15)
# measured mutex handoff: 30ns (IQR 26ns..56ns, n=15)
# measured sysmon tick: 104.815µs (IQR 101.599µs..106.284µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.17µs (IQR 1.138µs..1.333µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 2.441µs (IQR 2.32µs..2.764µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 3.489µs (IQR 3.099µs..3.998µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 10.598µs (IQR 9.792µs..11.323µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 2.129µs (IQR 1.894µs..2.438µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 4.07µs (IQR 3.86µs..4.213µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 7.055µs (IQR 6.356µs..7.26µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 12.804µs (IQR 11.892µs..13.86µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 3.155µs (IQR 3.077µs..3.192µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 6.066µs (IQR 5.325µs..7.057µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 8.227µs (IQR 7.539µs..9.359µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 20.739µs (IQR 17.207µs..22.051µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.429µs
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
futex_wake_call = 11.567µs
futex_wake = 24.65µs
thread_handoff = 30.43µs
mutex_handoff = 30ns
wake_preempt = 0.7801513128615933
sysmon_tick = 104.815µs
switch_footprint = 128768
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 1ns
refill_memory = 10ns
