#!/usr/bin/python3
"""The hold model of BenchmarkEngine, in SimPy 2.3 (Debian's python3-simpy).

PENDING processes each hold for a delay drawn uniformly from [1, 10000) time
units (random.random, the cheapest draw Python has), over and over, so PENDING event notices stay scheduled and every event
schedules its successor: the classic hold model (Vaucher and Duval 1975), as
BenchmarkEngine runs it on engine.Engine.

    /usr/bin/python3 simpy_hold.py PENDING EVENTS

prints one line, "pending=PENDING events=N events/s=R events/cpu-s=C", where
R is the events run divided by the wall time of SimPy's simulate loop and C
divided by the CPU time the process spent in it (the setup of the processes is
not timed). TestEngineAgainstSimPy runs it interleaved with the engine's hold
model and prints the ratio.
"""

import random
import sys
import time

from SimPy.Simulation import Process, Simulation, hold


class Holder(Process):
    def __init__(self, sim, counter):
        Process.__init__(self, sim=sim)
        self.counter = counter

    def run(self, draw, limit):
        sim = self.sim
        counter = self.counter
        while True:
            counter[0] += 1
            if counter[0] >= limit:
                sim.stopSimulation()
            yield hold, self, 1.0 + 9999.0 * draw()


def main():
    pending, events = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(1)
    draw = rng.random
    sim = Simulation()
    counter = [0]
    for _ in range(pending):
        p = Holder(sim, counter)
        sim.activate(p, p.run(draw, events + pending), delay=10000.0 * draw())
    start, cpu = time.perf_counter(), time.process_time()
    sim.simulate(until=1 << 62)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    ran = counter[0]
    print("pending=%d events=%d events/s=%.0f events/cpu-s=%.0f" % (pending, ran, ran / elapsed, ran / cpu))


if __name__ == "__main__":
    main()
