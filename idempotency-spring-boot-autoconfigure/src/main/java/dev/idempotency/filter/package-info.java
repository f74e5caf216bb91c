/**
 * Local duplicate filters in front of the store (DESIGN rule 7): a Bloom filter that rotates
 * generations, an exact bitmap of numeric ids, and the rebuild that fills them from the store at
 * start-up. Advisory: a wrong or missing answer costs speed, never correctness.
 */
@NullMarked
package dev.idempotency.filter;

import org.jspecify.annotations.NullMarked;
