package dev.idempotency.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.core.IdempotencyKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The duplicate filters in front of the store, asked in order: the first {@link Answer#COMPLETED}
 * skips the store, the first {@link Answer#ABSENT} goes straight to it, {@link Answer#MAYBE} and
 * {@link Answer#UNKNOWN} ask the next layer, and the store decides whatever no layer answered. A
 * filter that throws is treated as {@link Answer#UNKNOWN}: filters are advisory, a filter outage
 * costs only speed. Thread-safe.
 *
 * @since 0.2.0
 */
public final class DuplicateFilterChain {

	private static final Log logger = LogFactory.getLog(DuplicateFilterChain.class);

	private static final DuplicateFilterChain NONE = new DuplicateFilterChain(List.of(), Set.of(), List::of);

	private final List<DuplicateFilter> filters;

	private final Set<String> namespaces;

	private final Supplier<? extends List<? extends DuplicateFilterListener>> listeners;

	/**
	 * Creates a chain.
	 * @param filters the layers, first asked first
	 * @param namespaces the namespaces the chain applies to; empty for all
	 * @param listeners told every answer, for metrics
	 */
	public DuplicateFilterChain(List<? extends DuplicateFilter> filters, Set<String> namespaces,
			Supplier<? extends List<? extends DuplicateFilterListener>> listeners) {
		this.filters = List.copyOf(filters);
		this.namespaces = Set.copyOf(namespaces);
		this.listeners = listeners;
	}

	/**
	 * A chain without filters: every key goes to the store.
	 * @return the empty chain
	 */
	public static DuplicateFilterChain none() {
		return NONE;
	}

	/**
	 * The layers.
	 * @return the filters, first asked first
	 */
	public List<DuplicateFilter> filters() {
		return this.filters;
	}

	/**
	 * Asks the layers about a key.
	 * @param key the key about to be claimed
	 * @return the verdict
	 */
	public Verdict check(IdempotencyKey key) {
		if (!appliesTo(key)) {
			return Verdict.STORE_DECIDES;
		}
		List<DuplicateFilter> maybe = null;
		for (DuplicateFilter filter : this.filters) {
			Answer answer = answer(filter, key);
			Listeners.notifyEach(this.listeners.get(), (listener) -> listener.onFilterAnswer(filter.name(), answer),
					"filter answer");
			if (answer == Answer.COMPLETED) {
				return new Verdict(true, List.of());
			}
			if (answer == Answer.ABSENT) {
				break;
			}
			if (answer == Answer.MAYBE) {
				maybe = (maybe != null) ? maybe : new ArrayList<>(2);
				maybe.add(filter);
			}
		}
		return (maybe != null) ? new Verdict(false, List.copyOf(maybe)) : Verdict.STORE_DECIDES;
	}

	/**
	 * Teaches every layer a key that committed (or that the store found completed); called after
	 * commit only.
	 * @param key the key
	 */
	public void learn(IdempotencyKey key) {
		if (!appliesTo(key)) {
			return;
		}
		for (DuplicateFilter filter : this.filters) {
			try {
				filter.learn(key);
			}
			catch (RuntimeException ex) {
				logger.debug("Filter '" + filter.name() + "' could not learn " + key + "; it only costs speed", ex);
			}
		}
	}

	/**
	 * Reports the layers that said {@link Answer#MAYBE} for a key the store then claimed as new.
	 * @param verdict what the layers said
	 */
	public void falsePositive(Verdict verdict) {
		for (DuplicateFilter filter : verdict.maybe()) {
			Listeners.notifyEach(this.listeners.get(), (listener) -> listener.onFilterFalsePositive(filter.name()),
					"filter false positive");
		}
	}

	private boolean appliesTo(IdempotencyKey key) {
		return !this.filters.isEmpty() && (this.namespaces.isEmpty() || this.namespaces.contains(key.namespace()));
	}

	private static Answer answer(DuplicateFilter filter, IdempotencyKey key) {
		try {
			return filter.check(key);
		}
		catch (RuntimeException ex) {
			logger.debug("Filter '" + filter.name() + "' could not answer for " + key + "; asking the next layer", ex);
			return Answer.UNKNOWN;
		}
	}

	/**
	 * What the layers said about one key.
	 *
	 * @param completed a layer answered {@link Answer#COMPLETED}: skip the store
	 * @param maybe the layers that answered {@link Answer#MAYBE}
	 */
	public record Verdict(boolean completed, List<DuplicateFilter> maybe) {

		/** No layer answered: the store decides. */
		public static final Verdict STORE_DECIDES = new Verdict(false, List.of());

	}

}
