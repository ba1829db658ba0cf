/**
 * API v1 as bytes: route constants and the JSON of every body and frame ({@code Wire}), the registry of wire records
 * and their codecs ({@code WireTypes}, one {@code Wire*} class per capability), the token and secret files both ends
 * read. Used by the daemon and the client alike; exported to nobody (opened to Jackson only), so nothing outside
 * core depends on the wire's Java shape.
 */
@NullMarked
package dev.kiln.core.serve.wire;

import org.jspecify.annotations.NullMarked;
