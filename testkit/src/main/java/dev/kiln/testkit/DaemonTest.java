package dev.kiln.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test starts a real daemon or listener on loopback: a {@code ProjectionDaemon}, an {@code ApiServer}, an
 * engine serving its API, an HTTP server or a bare listening socket.
 *
 * <p>One of the four slow families that {@code mvn -Pquick verify} leaves out (the JUnit tag {@value #TAG}); the
 * default build runs them all. A class may carry several; subclasses inherit it. {@code LaneTagsTest} fails when a
 * test class does this without the tag.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(DaemonTest.TAG)
public @interface DaemonTest {
    /** The JUnit tag; the parent POM's {@code quick} profile excludes it by this name. */
    String TAG = "daemon";
}
