package dev.kiln.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test leans on the kernel itself: FIFOs, inotify and its limits, cgroups, tmpfs mounts, {@code /proc}.
 *
 * <p>One of the slow families that {@code mvn -Pquick verify} leaves out (the JUnit tag {@value #TAG}); the default
 * build runs them in its parallel slow lanes. A class may carry several; subclasses inherit it. {@code LaneTagsTest}
 * fails when a test class does this without the tag. A kernel class that measures what the machine gives it (CPU
 * shares) carries {@link AloneTest} as well.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Tag(KernelTest.TAG)
public @interface KernelTest {
    /** The JUnit tag; the parent POM's {@code quick} profile excludes it by this name. */
    String TAG = "kernel";
}
