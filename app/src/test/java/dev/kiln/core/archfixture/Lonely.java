package dev.kiln.core.archfixture;

/** Fixture for {@code ArchitectureTest}: a public core type nothing outside its package uses. */
public final class Lonely {
    int value() {
        return new Lonely().hashCode();
    }
}
