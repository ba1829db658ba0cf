/**
 * The deterministic demo workspace with planted faults ({@link dev.kiln.core.demo.DemoWorkspace}), used by {@code kiln
 * demo}, the console's first start and the tests.
 */
@NullMarked
package dev.kiln.core.demo;

import org.jspecify.annotations.NullMarked;
