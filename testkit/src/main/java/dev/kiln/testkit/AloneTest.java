package dev.kiln.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test measures what the machine gives it (the CPU time per wall second of a CPU-share group, C2-heavy hashing of
 * gigabytes), so it runs in the alone lane: one fork with the full JIT, after the parallel lanes, with nothing beside
 * it. Everything else of the slow families, kernel classes included, shares the three parallel forks: the alone lane
 * ran at a third of the two cores while it waited, and was more than a minute of CI.
 *
 * <p>A class that carries it also carries the slow family it belongs to ({@code @ProcessTest}, {@code @KernelTest} …),
 * which keeps it out of the quick lane. The JUnit tag is {@value #TAG}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Tag(AloneTest.TAG)
public @interface AloneTest {
    /** The JUnit tag; the parent POM's alone lane runs it, and the parallel lanes exclude it by this name. */
    String TAG = "alone";
}
