package dev.kiln.core.serve.wire;

import dev.kiln.core.telemetry.Figures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The registry of API v1's explicit wire types: for each core value that crosses the API, the wire record it travels
 * as and the two conversions. A core record is never written by reflection: {@link Wire#value} and {@link Wire#read}
 * find its {@link Codec} here and fail loudly for a type without one. The wire records live beside this class, one
 * file per capability ({@code WireSeeds}, {@code WireProbe}, {@code WireArchive}, {@code WireDoctor},
 * {@code WireEvents}); each lists its codecs, and {@link #CODECS} joins those lists.
 *
 * <p>The naming rule every wire record follows (and {@code docs/API.md} publishes): snake_case keys
 * ({@code @JsonProperty} on each component, so a Java rename does not change the wire); durations as milliseconds
 * with the unit in the name ({@code *_ms}: an integer for configured and whole-millisecond durations, a number with
 * at most three decimals for measured timings finer than that); times as RFC 3339 strings; paths as plain strings;
 * enums as lower_snake strings; an absent optional value as {@code null} (the key is always there).
 *
 * <p>Concurrency: immutable after class initialization.
 */
public final class WireTypes {
    /** One core type, the wire record it travels as, and the way there and back. */
    record Codec<C, W>(Class<C> core, Class<W> wire, Function<C, W> toWire, Function<W, C> toCore) {
        static <C, W> Codec<C, W> of(Class<C> core, Class<W> wire, Function<C, W> toWire, Function<W, C> toCore) {
            return new Codec<>(core, wire, toWire, toCore);
        }

        Object write(Object core) {
            return toWire.apply(this.core.cast(core));
        }

        C read(Object wire) {
            return toCore.apply(this.wire.cast(wire));
        }
    }

    /** Every codec, by core type. */
    static final Map<Class<?>, Codec<?, ?>> CODECS = codecs();

    private WireTypes() {
    }

    private static Map<Class<?>, Codec<?, ?>> codecs() {
        Map<Class<?>, Codec<?, ?>> m = new LinkedHashMap<>();
        for (List<Codec<?, ?>> family : List.of(WireSeeds.CODECS, WireProbe.CODECS, WireArchive.CODECS, WireDoctor.CODECS,
                WireEvents.CODECS, StoreWire.CODECS,
                WireServerSeeds.CODECS)) {
            for (Codec<?, ?> c : family) {
                if (m.put(c.core(), c) != null) {
                    throw new IllegalStateException("two wire types for " + c.core().getName());
                }
            }
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The codec of a core type. */
    static Codec<?, ?> codec(Class<?> core) {
        Codec<?, ?> c = CODECS.get(core);
        if (c == null) {
            throw new IllegalStateException("no wire type for " + core.getName() + ": core records never travel as"
                    + " themselves; add a wire record and its codec (docs/API.md, \"Adding a route\")");
        }
        return c;
    }

    // ---- the conversions the naming rule needs ---------------------------------------------------------------------

    /** An enum constant as lower_snake text. */
    static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    static @Nullable String nameOrNull(@Nullable Enum<?> e) {
        return e == null ? null : name(e);
    }

    /**
     * The constant of {@code type} a lower_snake text names (upper case accepted too).
     *
     * @throws IllegalArgumentException naming the values it may be
     */
    public static <E extends Enum<E>> E constant(Class<E> type, @Nullable String text) {
        if (text != null) {
            for (E e : type.getEnumConstants()) {
                if (e.name().equalsIgnoreCase(text) || e.name().equalsIgnoreCase(text.replace('-', '_'))) {
                    return e;
                }
            }
        }
        StringBuilder names = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(name(e));
        }
        throw new IllegalArgumentException("\"" + text + "\" is not one of " + names);
    }

    static @Nullable String path(@Nullable Path p) {
        return p == null ? null : p.toString();
    }

    static @Nullable Path path(@Nullable String s) {
        return s == null ? null : Path.of(s);
    }

    /** A path that is always there, as plain text. */
    static String pathText(Path p) {
        return p.toString();
    }

    /** A path field that is always there; a daemon's answer without it is not one this client can read. */
    static Path pathOf(String s) {
        if (s == null) {
            throw new IllegalArgumentException("a path field is missing from the daemon's answer");
        }
        return Path.of(s);
    }

    static List<String> paths(List<Path> ps) {
        return ps.stream().map(Path::toString).toList();
    }

    static List<Path> pathList(@Nullable List<String> ps) {
        return ps == null ? List.of() : ps.stream().map(Path::of).toList();
    }

    /** Nanoseconds as milliseconds with three decimals (microsecond resolution): a measured timing. */
    static double ms(long nanos) {
        return Figures.round(nanos / 1e6, 3);
    }

    /** {@link #ms(long)} back. */
    static long nanos(double ms) {
        return Math.round(ms * 1e6);
    }

    static @Nullable Long ms(Optional<Duration> d) {
        return d.map(Duration::toMillis).orElse(null);
    }

    static Optional<Duration> duration(@Nullable Long ms) {
        return ms == null ? Optional.empty() : Optional.of(Duration.ofMillis(ms));
    }

    static <T> List<T> list(@Nullable List<T> l) {
        return l == null ? List.of() : l;
    }

    static <T> @Nullable T orNull(Optional<T> o) {
        return o.orElse(null);
    }
}
