/**
 * Task contracts: the value ({@link dev.kiln.core.contract.Contract}), its JSON codec, the store that writes
 * contracts durably, canonical leaf ids and the legacy-id heal ({@link dev.kiln.core.contract.LeafIdHeal},
 * {@link dev.kiln.core.contract.HealReport}).
 */
@NullMarked
package dev.kiln.core.contract;

import org.jspecify.annotations.NullMarked;
