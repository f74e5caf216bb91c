package dev.idempotency.support;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.core.NonRetryableIdempotencyException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The starter's {@link FailureClassifier}: walks the failure's cause chain, outermost first, and
 * answers {@link FailureKind#INFRASTRUCTURE INFRASTRUCTURE} when a cause is one of:
 * <ul>
 * <li>Spring's {@link TransientDataAccessException} (query and lock-wait timeouts, deadlocks,
 * Redis command timeouts), {@link DataAccessResourceFailureException} (no JDBC connection, Redis
 * connection lost) or {@link RecoverableDataAccessException}; but not an
 * {@link OptimisticLockingFailureException}, which is a business-level version guard saying no;</li>
 * <li>{@link CannotCreateTransactionException} (the transaction could not begin);</li>
 * <li>a {@link SQLTransientException} (pool timeout, statement timeout, serialization failure), a
 * {@link SQLRecoverableException}, or any {@link SQLException} whose SQLState says connection
 * ({@code 08…}), insufficient resources ({@code 53…}), operator intervention ({@code 57…}, a
 * server shutting down or a cancelled statement), timeout ({@code HYT00}, {@code HYT01}),
 * serialization failure ({@code 40001}) or deadlock ({@code 40P01}); this
 * also covers a commit that failed on a lost connection, whose outcome is unknown;</li>
 * <li>{@link java.net.SocketException} (refused, reset), {@link java.net.SocketTimeoutException},
 * {@link java.net.UnknownHostException}, {@link java.nio.channels.ClosedChannelException};</li>
 * <li>a type contributed by a technology ({@link InfrastructureFailureTypes}): the auto-configuration
 * registers the connection and timeout exceptions of Lettuce, Jedis and Redisson, and Kafka's
 * {@code RetriableException} (through its {@code MessageTransport}), each when its library is on
 * the class path; a classifier created with one of the constructors that take none knows none of
 * them;</li>
 * <li>a type listed as infrastructure by the application.</li>
 * </ul>
 * A type listed as the message's by the application, or a {@link NonRetryableIdempotencyException}
 * (invalid key, {@code onDuplicate = THROW}), makes the failure the {@link FailureKind#MESSAGE
 * MESSAGE}'s wherever it sits in the chain; so does everything not listed above. Instances are
 * immutable and thread-safe.
 *
 * @since 0.2.0
 */
public final class DefaultFailureClassifier implements FailureClassifier {

	private static final List<String> INFRASTRUCTURE_SQL_STATE_PREFIXES = List.of("08", "53", "57", "HYT0",
			"40001", "40P01");

	private static final int MAX_DEPTH = 32;

	private final List<Class<?>> infrastructureTypes;

	private final List<Class<?>> messageTypes;

	/**
	 * Creates the classifier with the JDK's, Spring's and JDBC's types only: no client library's
	 * (those arrive from the auto-configuration, see
	 * {@link #DefaultFailureClassifier(List, List, List)}).
	 */
	public DefaultFailureClassifier() {
		this(List.of(), List.of(), List.of());
	}

	/**
	 * Creates the classifier with the types of the technologies on the class path and the
	 * application's own.
	 * @param technologies the types the technologies contribute (the {@code InfrastructureFailureTypes}
	 * and {@code MessageTransport} beans)
	 * @param infrastructureTypes further types that are the infrastructure's
	 * @param messageTypes types that are the message's even where a cause is infrastructure's;
	 * checked first
	 * @since 0.2.0
	 */
	public DefaultFailureClassifier(List<? extends InfrastructureFailureTypes> technologies,
			List<Class<? extends Throwable>> infrastructureTypes, List<Class<? extends Throwable>> messageTypes) {
		Set<Class<?>> infrastructure = new LinkedHashSet<>(List.of(TransientDataAccessException.class,
				DataAccessResourceFailureException.class, RecoverableDataAccessException.class,
				CannotCreateTransactionException.class, SQLTransientException.class, SQLRecoverableException.class,
				SocketException.class, SocketTimeoutException.class, UnknownHostException.class,
				ClosedChannelException.class));
		for (InfrastructureFailureTypes technology : technologies) {
			infrastructure.addAll(technology.infrastructureFailureTypes());
		}
		infrastructure.addAll(infrastructureTypes);
		this.infrastructureTypes = List.copyOf(infrastructure);
		List<Class<?>> message = new ArrayList<>(messageTypes);
		message.add(NonRetryableIdempotencyException.class);
		message.add(OptimisticLockingFailureException.class);
		this.messageTypes = List.copyOf(message);
	}

	@Override
	public FailureKind classify(Throwable failure) {
		List<Throwable> chain = causes(failure);
		for (Throwable cause : chain) {
			if (isAny(cause, this.messageTypes)) {
				return FailureKind.MESSAGE;
			}
		}
		for (Throwable cause : chain) {
			if (isAny(cause, this.infrastructureTypes) || isInfrastructureSqlState(cause)) {
				return FailureKind.INFRASTRUCTURE;
			}
		}
		return FailureKind.MESSAGE;
	}

	/**
	 * The types this classifier calls the infrastructure's, for the documentation and its test.
	 * @return the types: the JDK's, Spring's and JDBC's, then the technologies', then the
	 * application's, each once
	 */
	public List<Class<?>> infrastructureTypes() {
		return this.infrastructureTypes;
	}

	/**
	 * The types this classifier calls the message's wherever they sit in the chain.
	 * @return the types, the application's first
	 */
	public List<Class<?>> messageTypes() {
		return this.messageTypes;
	}

	private static boolean isAny(Throwable cause, List<Class<?>> types) {
		for (Class<?> type : types) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isInfrastructureSqlState(Throwable cause) {
		if (!(cause instanceof SQLException sql)) {
			return false;
		}
		String state = sql.getSQLState();
		if (state == null) {
			return false;
		}
		for (String prefix : INFRASTRUCTURE_SQL_STATE_PREFIXES) {
			if (state.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

	/** The failure and its causes (and each SQLException's chained exceptions), without cycles. */
	private static List<Throwable> causes(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		@Nullable Throwable candidate = failure;
		while (candidate != null && chain.size() < MAX_DEPTH && seen.add(candidate)) {
			chain.add(candidate);
			if (candidate instanceof SQLException sql && sql.getNextException() != null
					&& seen.add(sql.getNextException())) {
				chain.add(sql.getNextException());
			}
			candidate = candidate.getCause();
		}
		return chain;
	}

}
