/**
 * Reading what a daemon answers within bounds a hostile or broken server cannot push past: {@link
 * dev.kiln.core.http.BoundedRead}, the one facility every client of a {@code kiln serve} reads through (the
 * {@code serve} clients, the remote engine, the follower, the doctor).
 */
@NullMarked
package dev.kiln.core.http;

import org.jspecify.annotations.NullMarked;
