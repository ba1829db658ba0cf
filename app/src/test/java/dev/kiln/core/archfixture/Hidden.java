package dev.kiln.core.archfixture;

/**
 * Fixture for {@code ArchitectureTest}: a public core type in a package core's module does not export, and used
 * from outside its package (by {@code dev.kiln.ui.archfixture.ReachesIn}). Test code only; never on a real path.
 */
public final class Hidden {
    public static int answer() {
        return 42;
    }
}
