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
# measured goroutine handoff: 202ns (IQR 185ns..234ns, n=15)
# measured locked-thread handoff: 35.472µs (IQR 30.187µs..43.18µs, n=15)
# measured futex round trip: 2.335µs (IQR 2.289µs..2.349µs, n=15)
# measured wake preempt: 0.77 (IQR 0.77..0.78, n=15)
# measured futex loaded handoff: 1.638µs (IQR 1.462µs..1.677µs, n=15)
# measured futex wake call: 10.944µs (IQR 10.138µs..11.579µs, n=15)
# measured futex remote wake: 24.132µs (IQR 23.62µs..25.874µs, n=15)
# measured system call: 89ns (IQR 88ns..89ns, n=15)
# measured context switch: 1.869µs (IQR 1.422µs..2.033µs, n=15)
# measured mutex handoff: 53ns (IQR 49ns..61ns, n=15)
# measured sysmon tick: 99.593µs (IQR 98.581µs..101.884µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.151µs (IQR 1.128µs..1.175µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 2.536µs (IQR 2.301µs..2.587µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 3.052µs (IQR 2.856µs..3.292µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 7.988µs (IQR 7.728µs..8.285µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 1.334µs (IQR 1.307µs..1.374µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 2.784µs (IQR 2.692µs..2.94µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 4.653µs (IQR 4.356µs..4.99µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 9.928µs (IQR 9.641µs..10.233µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 2.509µs (IQR 2.454µs..2.548µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 4.455µs (IQR 3.912µs..4.799µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 8.398µs (IQR 7.441µs..9.593µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 17.366µs (IQR 15.916µs..19.988µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.46µs
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
futex_wake_call = 10.944µs
futex_wake = 24.132µs
thread_handoff = 35.472µs
mutex_handoff = 53ns
wake_preempt = 0.7738359201773837
sysmon_tick = 99.593µs
switch_footprint = 98816
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 1ns
refill_memory = 11ns
