package dev.kiln.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test spawns real child processes: a kiln child JVM, uv, npm/node/python MCP servers, python3, tar, mkfifo,
 * keytool, a shell.
 *
 * <p>One of the four slow families that {@code mvn -Pquick verify} leaves out (the JUnit tag {@value #TAG}); the
 * default build runs them all. A class may carry several; subclasses inherit it. {@code LaneTagsTest} fails when a
 * test class does this without the tag.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(ProcessTest.TAG)
public @interface ProcessTest {
    /** The JUnit tag; the parent POM's {@code quick} profile excludes it by this name. */
    String TAG = "process";
}
