package benchcmp_test

import (
	"os"

	"github.com/innosim/innosim/internal/benchcmp"
)

// Two runs of the same code whose fingerprints differ only in the kernel: the
// report names the kernel and gives no verdict (study C).
func ExampleRun_environmentsDiffer() {
	err := benchcmp.Run([]string{"testdata/kernel_old.txt", "testdata/kernel_new.txt"}, os.Stdout, os.Stderr)
	if err != nil {
		panic(err)
	}
	// Output:
	// old: testdata/kernel_old.txt (30 results)
	// new: testdata/kernel_new.txt (30 results)
	// environments differ:
	//   kernel: "5.4.0-91-generic" -> "5.11.0-41-generic"
	// changes below are between two environments, not between two versions of the code;
	// re-run old and new on one environment for a verdict.
	//
	// benchmark                              unit         old          new          change  95% interval      p (n)            verdict
	// AIOWake/policy=wake-all/handlers=32-2  sec/op       40.75µ ± 2%  52.08µ ± 3%  +27.8%  [+21.9%, +33.4%]  p<0.001 (10+10)  not judged
	// AIOWake/policy=wake-all/handlers=32-2  futex-share  57.55 ± 3%   57.55 ± 3%   +0.0%   [-5.3%, +5.6%]    p=1.000 (10+10)  not judged
	// AIOWake/policy=targeted/handlers=32-2  sec/op       9.780µ ± 3%  12.46µ ± 3%  +27.4%  [+22.7%, +34.2%]  p<0.001 (10+10)  not judged
	// AIOWake/policy=targeted/handlers=32-2  futex-share  7.850 ± 5%   7.850 ± 5%   +0.0%   [-5.8%, +6.2%]    p=1.000 (10+10)  not judged
	// Admission/policy=atomic/threads=64-2   sec/op       1.514µ ± 2%  1.921µ ± 2%  +26.9%  [+21.5%, +32.4%]  p<0.001 (10+10)  not judged
	// Admission/policy=atomic/threads=64-2   futex-share  11.99 ± 5%   11.99 ± 5%   +0.0%   [-5.3%, +5.6%]    p=1.000 (10+10)  not judged
	// verdict: none, environments differ (kernel)
}

// The same environment, the new code twice as slow: a significant regression.
func ExampleRun_regression() {
	err := benchcmp.Run([]string{"testdata/same_old.txt", "testdata/same_slow.txt"}, os.Stdout, os.Stderr)
	if err != nil {
		panic(err)
	}
	// Output:
	// old: testdata/same_old.txt (30 results)
	// new: testdata/same_slow.txt (30 results)
	// environments match
	//
	// benchmark                              unit         old          new          change   95% interval       p (n)            verdict
	// AIOWake/policy=wake-all/handlers=32-2  sec/op       40.43µ ± 2%  82.73µ ± 3%  +104.6%  [+94.9%, +110.5%]  p<0.001 (10+10)  regression
	// AIOWake/policy=wake-all/handlers=32-2  futex-share  57.55 ± 3%   57.55 ± 3%   +0.0%    [-5.3%, +5.6%]     p=1.000 (10+10)  no significant change
	// AIOWake/policy=targeted/handlers=32-2  sec/op       9.904µ ± 1%  19.42µ ± 3%  +96.1%   [+91.2%, +103.9%]  p<0.001 (10+10)  regression
	// AIOWake/policy=targeted/handlers=32-2  futex-share  7.850 ± 5%   7.850 ± 5%   +0.0%    [-5.8%, +6.2%]     p=1.000 (10+10)  no significant change
	// Admission/policy=atomic/threads=64-2   sec/op       1.530µ ± 2%  3.022µ ± 2%  +97.4%   [+92.3%, +106.7%]  p<0.001 (10+10)  regression
	// Admission/policy=atomic/threads=64-2   futex-share  11.99 ± 5%   11.99 ± 5%   +0.0%    [-5.3%, +5.6%]     p=1.000 (10+10)  no significant change
	// verdict: regression (3 regression, 0 improvement, 0 changed, 3 unchanged of 6)
}
