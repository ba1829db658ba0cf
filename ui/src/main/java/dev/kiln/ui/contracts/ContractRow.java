package dev.kiln.ui.contracts;

/**
 * One line of the Contracts page.
 *
 * @param file path under {@code tasks/}
 * @param declaredId the {@code leaf_id} the file declares (empty when unreadable or missing)
 * @param canonicalId the leaf id its location implies
 * @param state {@code ok}, {@code legacy id}, {@code misplaced id}, {@code no leaf id} or {@code unreadable}
 * @param status the contract's status
 * @param title the contract's title
 * @param deadline {@code yyyy-MM-dd} (UTC), with {@code  · overdue} when past
 * @param problem why it is unreadable, or what is wrong with its id; empty when fine
 */
public record ContractRow(String file, String declaredId, String canonicalId, String state, String status, String title,
        String deadline, String problem) {

    /** Whether the row needs a person's attention. */
    public boolean flagged() {
        return !state.equals("ok");
    }
}
