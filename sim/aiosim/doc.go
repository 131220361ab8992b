// Package aiosim is the simulator's driver of package aio's core: InnoDB's
// AIO array with its handler threads. Install puts one on a machine: under
// aio.IOSimulated (Simulated: os0file.cc's simulated AIO) submitters reserve
// slots under the array's mutex and set the events of the core's wake set,
// and each segment's handler steps aio.HandlerCycle, the same decisions the
// real driver makes, charging its scan, its pread and the device's time;
// under aio.IONative (Native: innodb_use_native_aio) a submitter makes one
// io_submit, the device completes it, and the kernel wakes only the handler
// of that segment, which reaps with io_getevents. The drivers run
// OpPrefetch, OpPrefetchSiblings (a leaf split's sibling, read only when the
// buffer pool does not hold it: Siblings) and a handler's loop
// (OpAIOHandler), and are the page cleaner's write array
// (bufpool.WriteArray).
package aiosim
