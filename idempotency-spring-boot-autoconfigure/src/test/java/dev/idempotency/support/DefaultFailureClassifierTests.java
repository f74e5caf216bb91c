package dev.idempotency.support;

import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;

import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.kafka.KafkaMessageTransport;
import dev.idempotency.redis.stream.RedisStreamMessageTransport;
import dev.idempotency.store.redis.JedisFailureTypes;
import dev.idempotency.store.redis.LettuceFailureTypes;
import dev.idempotency.store.redisson.RedissonFailureTypes;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultFailureClassifierTests {

	/** What the auto-configuration contributes with every technology on the class path. */
	private static final List<InfrastructureFailureTypes> TECHNOLOGIES = List.of(new KafkaMessageTransport(),
			new RedisStreamMessageTransport(), new LettuceFailureTypes(), new JedisFailureTypes(),
			new RedissonFailureTypes());

	private final DefaultFailureClassifier classifier = new DefaultFailureClassifier(TECHNOLOGIES, List.of(),
			List.of());

	@Test
	void defaultInfrastructureTypesArePinned() {
		assertThat(new DefaultFailureClassifier().infrastructureTypes()).extracting(Class::getName)
			.containsExactly("org.springframework.dao.TransientDataAccessException",
					"org.springframework.dao.DataAccessResourceFailureException",
					"org.springframework.dao.RecoverableDataAccessException",
					"org.springframework.transaction.CannotCreateTransactionException",
					"java.sql.SQLTransientException", "java.sql.SQLRecoverableException", "java.net.SocketException",
					"java.net.SocketTimeoutException", "java.net.UnknownHostException",
					"java.nio.channels.ClosedChannelException");
		assertThat(this.classifier.messageTypes()).extracting(Class::getName)
			.containsExactly("dev.idempotency.core.NonRetryableIdempotencyException",
					"org.springframework.dao.OptimisticLockingFailureException");
	}

	@Test
	void technologyTypesFollowTheDefaultsOnceEachThenTheApplications() {
		DefaultFailureClassifier custom = new DefaultFailureClassifier(
				List.of(new LettuceFailureTypes(), new KafkaMessageTransport(), new LettuceFailureTypes()),
				List.of(PaymentGatewayDownException.class, SocketException.class), List.of());
		assertThat(custom.infrastructureTypes()).hasSize(14)
			.endsWith(RedisConnectionException.class, RedisCommandTimeoutException.class,
					RetriableException.class, PaymentGatewayDownException.class);
	}

	@Test
	void technologyTypesArePinned() {
		assertThat(this.classifier.infrastructureTypes()).extracting(Class::getName)
			.containsSubsequence("java.nio.channels.ClosedChannelException",
					"org.apache.kafka.common.errors.RetriableException", "io.lettuce.core.RedisConnectionException",
					"io.lettuce.core.RedisCommandTimeoutException",
					"redis.clients.jedis.exceptions.JedisConnectionException",
					"org.redisson.client.RedisConnectionException", "org.redisson.client.RedisTimeoutException")
			.hasSize(16);
	}

	@Test
	void clientOutagesAreTheMessagesForAClassifierThatKnowsNoTechnology() {
		DefaultFailureClassifier plain = new DefaultFailureClassifier();
		assertThat(plain.classify(new RuntimeException(new RedisConnectionException("refused"))))
			.isEqualTo(FailureKind.MESSAGE);
		assertThat(plain.classify(new RuntimeException(new NetworkException("disconnected"))))
			.isEqualTo(FailureKind.MESSAGE);
		assertThat(plain.classify(new RuntimeException(new SocketException("reset"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void jedisAndRedissonOutagesAreInfrastructure() {
		assertThat(kindOf(new RuntimeException(new JedisConnectionException("refused"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new IdempotencyStoreException("claim failed",
				new org.redisson.client.RedisTimeoutException("timed out")))).isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void unreachableDatabaseIsInfrastructure() {
		assertThat(kindOf(new CannotGetJdbcConnectionException("no connection",
				new SQLTransientConnectionException("HikariPool-1 - Connection is not available")))).isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new CannotCreateTransactionException("begin failed", new ConnectException("refused"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void storeExceptionIsClassifiedByItsCause() {
		assertThat(kindOf(new IdempotencyStoreException("claim failed",
				new SQLException("An I/O error occurred while sending to the backend", "08006"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new IdempotencyStoreException("claim failed",
				new DataIntegrityViolationException("value too long")))).isEqualTo(FailureKind.MESSAGE);
	}

	@Test
	void commitOnALostConnectionIsInfrastructure() {
		assertThat(kindOf(new TransactionSystemException("Could not commit JDBC transaction",
				new SQLException("This connection has been closed.", "08003")))).isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void commitRejectedForAnotherReasonIsTheMessages() {
		assertThat(kindOf(new TransactionSystemException("Could not commit",
				new IllegalStateException("validation failed")))).isEqualTo(FailureKind.MESSAGE);
	}

	@Test
	void timeoutsAndLockWaitsAreInfrastructure() {
		assertThat(kindOf(new QueryTimeoutException("statement timeout"))).isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new CannotAcquireLockException("lock wait timeout"))).isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new SQLException("canceling statement due to statement timeout", "57014")))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new SQLException("deadlock detected", "40P01"))).isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new RuntimeException(new SocketTimeoutException("read timed out"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void redisOutagesAreInfrastructure() {
		assertThat(kindOf(new RedisConnectionFailureException("Unable to connect to Redis")))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new IdempotencyStoreException("claim failed", new RedisConnectionException("refused"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(kindOf(new RuntimeException(new RedisCommandTimeoutException("Command timed out"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void brokerOutageInTheListenerIsInfrastructure() {
		assertThat(kindOf(new ListenerExecutionFailedException("send failed", new NetworkException("disconnected"))))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
	}

	@Test
	void businessAndKeyFailuresAreTheMessages() {
		assertThat(kindOf(new IllegalStateException("out of stock"))).isEqualTo(FailureKind.MESSAGE);
		assertThat(kindOf(new ListenerExecutionFailedException("failed",
				new InvalidIdempotencyKeyException("key is blank")))).isEqualTo(FailureKind.MESSAGE);
		assertThat(kindOf(new SQLException("duplicate key", "23505"))).isEqualTo(FailureKind.MESSAGE);
	}

	@Test
	void optimisticLockingFailureIsTheMessagesAlthoughTransient() {
		assertThat(kindOf(new OptimisticLockingFailureException("stale version"))).isEqualTo(FailureKind.MESSAGE);
	}

	@Test
	void applicationTypesExtendTheDefaultsAndMessageTypesWin() {
		DefaultFailureClassifier custom = new DefaultFailureClassifier(List.of(),
				List.of(PaymentGatewayDownException.class), List.of(CardDeclinedException.class));
		assertThat(custom.classify(new RuntimeException(new PaymentGatewayDownException())))
			.isEqualTo(FailureKind.INFRASTRUCTURE);
		assertThat(custom.classify(new CardDeclinedException(new ConnectException("refused"))))
			.isEqualTo(FailureKind.MESSAGE);
		assertThat(this.classifier.classify(new PaymentGatewayDownException())).isEqualTo(FailureKind.MESSAGE);
	}

	@Test
	void causeCyclesEnd() {
		RuntimeException first = new RuntimeException("first");
		RuntimeException second = new RuntimeException("second", first);
		first.initCause(second);
		assertThat(kindOf(first)).isEqualTo(FailureKind.MESSAGE);
	}

	private FailureKind kindOf(Throwable failure) {
		return this.classifier.classify(failure);
	}

	static class PaymentGatewayDownException extends RuntimeException {

		private static final long serialVersionUID = 1L;

	}

	static class CardDeclinedException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		CardDeclinedException(Throwable cause) {
			super(cause);
		}

	}

}
