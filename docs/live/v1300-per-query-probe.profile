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
# measured goroutine handoff: 212ns (IQR 190ns..215ns, n=15)
# measured locked-thread handoff: 24.167µs (IQR 22.646µs..24.698µs, n=15)
# measured futex round trip: 2.335µs (IQR 2.305µs..2.348µs, n=15)
# measured wake preempt: 0.78 (IQR 0.77..0.78, n=15)
# measured futex loaded handoff: 1.69µs (IQR 1.607µs..1.878µs, n=15)
# measured futex wake call: 12.637µs (IQR 11.788µs..12.925µs, n=15)
# measured futex remote wake: 28.996µs (IQR 27.631µs..32.227µs, n=15)
# measured system call: 87ns (IQR 87ns..87ns, n=15)
# measured context switch: 3.062µs (IQR 1.431µs..8.379µs, n=15)
# measured mutex handoff: 48ns (IQR 21ns..52ns, n=15)
# measured sysmon tick: 106.312µs (IQR 100.935µs..107.883µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.195µs (IQR 1.144µs..1.232µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 2.565µs (IQR 2.418µs..2.788µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 3.231µs (IQR 3.07µs..3.516µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 8.123µs (IQR 7.824µs..8.454µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 2.141µs (IQR 2.051µs..2.214µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 2.86µs (IQR 2.688µs..2.913µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 5.026µs (IQR 4.558µs..5.602µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 10.585µs (IQR 9.808µs..11.972µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 2.851µs (IQR 2.549µs..2.938µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 3.98µs (IQR 3.855µs..6.472µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 7.762µs (IQR 7.042µs..8.846µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 19.637µs (IQR 15.6µs..22.933µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.516µs
syscall = 87ns
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
futex_wake_call = 12.637µs
futex_wake = 28.996µs
thread_handoff = 24.167µs
mutex_handoff = 48ns
wake_preempt = 0.7769880053309641
sysmon_tick = 106.312µs
switch_footprint = 82176
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 1ns
refill_memory = 16ns
