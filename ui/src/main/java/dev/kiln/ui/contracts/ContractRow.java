package dev.kiln.ui.contracts;

/**
 * One line of the Contracts page.
 *
 * @param file path under {@code tasks/}
 * @param leafId the declared leaf id (empty when unreadable)
 * @param canonicalId the leaf id its location implies
 * @param problem why it is unreadable, or empty
 */
public record ContractRow(String file, String leafId, String canonicalId, String problem) {

    /** The row's state in words, for the State column and the filter. */
    public String state() {
        if (!problem.isEmpty()) {
            return "unreadable";
        }
        if (leafId.equals(canonicalId)) {
            return "ok";
        }
        return canonicalId.endsWith("/" + leafId) ? "legacy id" : "misplaced id";
    }
}
