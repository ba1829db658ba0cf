package dev.kiln.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import org.junit.jupiter.api.Test;

@ProcessTest @KernelTest
class StartupBenchmarkTest {

    @Test
    void median_ofOddAndEvenCounts() {
        assertThat(StartupBenchmark.median(new double[] {900, 1200, 1000})).isEqualTo(1000);
        assertThat(StartupBenchmark.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }

    @Test
    void cpuMillis_readsAProcessFromProc() throws Exception {
        // A child that burns CPU for a while, read while it runs: its own utime+stime, not this JVM's.
        Process p = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5").start();
        try {
            double ms = Double.NaN;
            for (int i = 0; i < 200 && !(ms > 0); i++) {
                Thread.sleep(50);
                ms = StartupBenchmark.cpuMillis(p.pid());
            }
            assertThat(ms).as("CPU ms of the busy child").isGreaterThan(0);
        } finally {
            p.destroyForcibly().waitFor();
        }
        assertThat(StartupBenchmark.cpuMillis(Long.MAX_VALUE)).as("no such process").isNaN();
    }
}
