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
# measured goroutine handoff: 234ns (IQR 222ns..243ns, n=15)
# measured locked-thread handoff: 28.086µs (IQR 25.094µs..35.195µs, n=15)
# measured futex round trip: 2.315µs (IQR 2.27µs..2.332µs, n=15)
# measured wake preempt: 0.78 (IQR 0.78..0.79, n=15)
# measured futex loaded handoff: 1.697µs (IQR 1.637µs..2.025µs, n=15)
# measured futex wake call: 10.781µs (IQR 10.119µs..12.457µs, n=15)
# measured futex remote wake: 28.83µs (IQR 27.034µs..31.117µs, n=15)
# measured system call: 88ns (IQR 87ns..88ns, n=15)
# measured context switch: 2.008µs (IQR 1.498µs..9.523µs, n=15)
# measured mutex handoff: 52ns (IQR 30ns..54ns, n=15)
# measured sysmon tick: 98.888µs (IQR 98.663µs..99.628µs, n=15)
# measured switch in a ring of 2, 0 KiB each: 1.274µs (IQR 1.199µs..1.339µs, n=15)
# measured switch in a ring of 16, 0 KiB each: 2.718µs (IQR 2.408µs..3.175µs, n=15)
# measured switch in a ring of 128, 0 KiB each: 3.702µs (IQR 3.095µs..3.828µs, n=15)
# measured switch in a ring of 1024, 0 KiB each: 8.896µs (IQR 8.645µs..9.331µs, n=15)
# measured switch in a ring of 2, 16 KiB each: 1.305µs (IQR 1.288µs..1.343µs, n=15)
# measured switch in a ring of 16, 16 KiB each: 2.737µs (IQR 2.616µs..2.941µs, n=15)
# measured switch in a ring of 128, 16 KiB each: 5.216µs (IQR 4.871µs..5.566µs, n=15)
# measured switch in a ring of 1024, 16 KiB each: 10.42µs (IQR 10.128µs..10.951µs, n=15)
# measured switch in a ring of 2, 64 KiB each: 2.516µs (IQR 2.488µs..2.534µs, n=15)
# measured switch in a ring of 16, 64 KiB each: 4.514µs (IQR 4.195µs..5.531µs, n=15)
# measured switch in a ring of 128, 64 KiB each: 8.622µs (IQR 7.474µs..8.927µs, n=15)
# measured switch in a ring of 1024, 64 KiB each: 19.364µs (IQR 17.252µs..22.217µs, n=15)
# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold
name = calibrated
context_switch = 1.521µs
syscall = 88ns
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
futex_wake_call = 10.781µs
futex_wake = 28.83µs
thread_handoff = 28.086µs
mutex_handoff = 52ns
wake_preempt = 0.7817371937639199
sysmon_tick = 98.888µs
switch_footprint = 90368
cache_l2 = 2097152
cache_llc = 272629760
refill_llc = 2ns
refill_memory = 14ns
