# cost profile measured by innosim calibrate
# goos: linux
# goarch: amd64
# cpu: Intel(R) Xeon(R) Processor
# goversion: go1.26.8
# gomaxprocs: 2
# cpus: 2
# kernel: 6.18.44-fc-v1045
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
# measured goroutine handoff: 258ns (IQR 200ns..273ns, n=15)
# measured locked-thread handoff: 7.032µs (IQR 6.522µs..7.643µs, n=15)
# measured futex round trip: 1.905µs (IQR 1.875µs..1.929µs, n=15)
# measured wake preempt: 0.79 (IQR 0.78..0.79, n=15)
# measured futex loaded handoff: 1.317µs (IQR 1.235µs..1.376µs, n=15)
# measured futex wake call: 12.774µs (IQR 11.31µs..13.076µs, n=15)
# measured futex remote wake: 21.631µs (IQR 20.116µs..23.395µs, n=15)
# measured system call: 74ns (IQR 74ns..75ns, n=15)
# measured context switch: 1.096µs (IQR 1.093µs..1.103µs, n=15)
# measured mutex handoff: 21ns (IQR 16ns..22ns, n=15)
# measured sysmon tick: 92.726µs (IQR 91.491µs..118.253µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.462µs (IQR 1.397µs..1.873µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 4.013µs (IQR 2.85µs..6.548µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 5.415µs (IQR 5.027µs..5.73µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 14.135µs (IQR 13.756µs..14.912µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 2.824µs (IQR 1.532µs..29.559µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 6.526µs (IQR 3.366µs..7.333µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 7.737µs (IQR 7.362µs..8.372µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 18.121µs (IQR 17.237µs..19.99µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 3.206µs (IQR 3.123µs..3.24µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 5.667µs (IQR 5.03µs..6.855µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 16.033µs (IQR 12.746µs..18.734µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 28.209µs (IQR 24.447µs..32.473µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.169µs
syscall = 74ns
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
futex_wake_call = 12.774µs
futex_wake = 21.631µs
thread_handoff = 7.032µs
mutex_handoff = 21ns
wake_preempt = 0.7865118356409111
sysmon_tick = 92.726µs
switch_footprint = 108800
cache_l2 = 2097152
cache_llc = 503316480
refill_llc = 3ns
refill_memory = 26ns
