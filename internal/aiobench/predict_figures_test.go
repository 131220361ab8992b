package aiobench

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
)

// TestPredictAIOWakeFigures pins Predict's predictions for fixed
// configurations and seeds, as recorded from the model before it was folded
// into Machine: a change of the model's structure must not move a figure, and
// a change of the model itself must update these and say why.
func TestPredictAIOWakeFigures(t *testing.T) {
	cases := []struct {
		wake           aio.WakePolicy
		handlers, cpus int
		want           string
	}{
		{aio.WakeAll, 4, 2,
			`{NsPerOp:32029.141333333333 WakeupsPerOp:3.1438333333333333 WastedPerOp:2.1438333333333333 FutexPerOp:5.6178333333333335 SubmitterFutexPerOp:1.1596666666666666 HandoffsPerOp:0.03683333333333333 RemoteWakesPerOp:1.477833333333333 LocalWakesPerOp:1.9348333333333332 SwitchesPerOp:4.0456666666666665}`},
		{aio.WakeTargeted, 4, 2,
			`{NsPerOp:9518.704 WakeupsPerOp:1 WastedPerOp:0 FutexPerOp:1.2399999999999998 SubmitterFutexPerOp:1.226 HandoffsPerOp:0.007666666666666666 RemoteWakesPerOp:0.22433333333333333 LocalWakesPerOp:1.0096666666666665 SwitchesPerOp:1.7913333333333334}`},
		{aio.WakeAll, 32, 2,
			`{NsPerOp:480251.468 WakeupsPerOp:51.51299999999999 WastedPerOp:50.51299999999999 FutexPerOp:102.84533333333331 SubmitterFutexPerOp:0.3893333333333333 HandoffsPerOp:1.3089999999999997 RemoteWakesPerOp:29.16283333333333 LocalWakesPerOp:23.730999999999998 SwitchesPerOp:63.16133333333333}`},
		{aio.WakeTargeted, 32, 4,
			`{NsPerOp:17606.385166666663 WakeupsPerOp:1 WastedPerOp:0 FutexPerOp:2.0283333333333333 SubmitterFutexPerOp:1.4126666666666667 HandoffsPerOp:0.06033333333333333 RemoteWakesPerOp:1.4245 LocalWakesPerOp:0.3381666666666666 SwitchesPerOp:1.2056666666666667}`},
		{aio.WakeDeferred, 2, 1,
			`{NsPerOp:11536.211 WakeupsPerOp:1 WastedPerOp:0 FutexPerOp:1.1281666666666665 SubmitterFutexPerOp:1.1613333333333333 HandoffsPerOp:0.005166666666666667 RemoteWakesPerOp:0.005333333333333333 LocalWakesPerOp:1.1434999999999997 SwitchesPerOp:2.005}`},
	}
	for _, tt := range cases {
		t.Run(fmt.Sprintf("wake=%s/handlers=%d/cpus=%d", tt.wake, tt.handlers, tt.cpus), func(t *testing.T) {
			p, err := Predict(Config{Wake: tt.wake, Handlers: tt.handlers, CPUs: tt.cpus,
				Costs: benchCosts(), Ops: 2000, Runs: 3})
			require.NoError(t, err)
			got := fmt.Sprintf("%+v", p)
			assert.Equal(t, tt.want, got)
		})
	}
}
