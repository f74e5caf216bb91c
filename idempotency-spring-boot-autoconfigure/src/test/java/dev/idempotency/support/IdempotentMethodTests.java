package dev.idempotency.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.kafka.KafkaMessageTransport;
import dev.idempotency.redis.stream.RedisStreamListener;
import dev.idempotency.redis.stream.RedisStreamMessageTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link IdempotentMethod}.
 */
class IdempotentMethodTests {

	private static final StringValueResolver VERBATIM = (value) -> value;

	private static final MessageTransports TRANSPORTS = MessageTransports
		.of(List.of(new KafkaMessageTransport(), new RedisStreamMessageTransport()));

	@ParameterizedTest
	@ValueSource(strings = { "completableFuture", "completionStage", "future" })
	void asynchronousReturnTypesAreRejectedAtMetadataTime(String methodName) {
		assertThatIllegalStateException().isThrownBy(() -> of(Handlers.class, methodName))
			.withMessageContaining(methodName)
			.withMessageContaining("return a plain value");
	}

	@Test
	void unannotatedMethodIsRejected() {
		assertThatIllegalStateException().isThrownBy(() -> of(Handlers.class, "notIdempotent"))
			.withMessageContaining("not annotated with @Idempotent");
	}

	@Test
	void retentionInDaysIsParsed() {
		assertThat(of(Handlers.class, "sevenDays").retention()).isEqualTo(Duration.ofDays(7));
	}

	@Test
	void retentionInIso8601IsParsed() {
		assertThat(of(Handlers.class, "twelveHours").retention()).isEqualTo(Duration.ofHours(12));
	}

	@ParameterizedTest
	@ValueSource(strings = { "zeroSeconds", "minusOneDay", "banana" })
	void nonPositiveOrMalformedRetentionIsRejected(String methodName) {
		Method method = method(Handlers.class, methodName);
		String retention = method.getAnnotation(Idempotent.class).retention();
		assertThatIllegalStateException().isThrownBy(() -> IdempotentMethod.of(method, Handlers.class, TRANSPORTS, VERBATIM))
			.withMessageContaining("retention = \"" + retention + "\"")
			.withMessageContaining(methodName);
	}

	@Test
	void emptyRetentionMeansTheDefault() {
		assertThat(of(Handlers.class, "defaults").retention()).isNull();
	}

	@Test
	void placeholdersAreResolvedInNamespaceRetentionAndStore() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("test",
					Map.of("app.namespace", "points", "app.retention", "3d", "app.store", "secondaryStore")));
		IdempotentMethod metadata = IdempotentMethod.of(method(Handlers.class, "placeholders"), Handlers.class,
				TRANSPORTS, environment::resolvePlaceholders);
		assertThat(metadata.namespace()).isEqualTo("points");
		assertThat(metadata.retention()).isEqualTo(Duration.ofDays(3));
		assertThat(metadata.storeName()).isEqualTo("secondaryStore");
	}

	@Test
	void keyExpressionIsNotPlaceholderResolved() {
		StringValueResolver failing = (value) -> {
			throw new AssertionError("resolved " + value);
		};
		assertThat(IdempotentMethod.of(method(Handlers.class, "keyOnly"), Handlers.class, TRANSPORTS, failing).keyExpression())
			.isEqualTo("#msg.orderId");
	}

	@Test
	void namespaceResolvingToBlankMeansNoExplicitNamespace() {
		IdempotentMethod metadata = IdempotentMethod.of(method(Handlers.class, "placeholders"), Handlers.class, TRANSPORTS,
				(value) -> value.startsWith("${app.namespace") ? "  " : "1d");
		assertThat(metadata.namespace()).isNull();
	}

	@Test
	void emptyAttributesMeanTheDefaults() {
		IdempotentMethod metadata = of(Handlers.class, "defaults");
		assertThat(metadata.keyExpression()).isEmpty();
		assertThat(metadata.namespace()).isNull();
		assertThat(metadata.retention()).isNull();
		assertThat(metadata.onDuplicate()).isEqualTo(OnDuplicate.ACKNOWLEDGE);
		assertThat(metadata.storeName()).isEmpty();
	}

	@Test
	void explicitAttributesAreRead() {
		IdempotentMethod metadata = of(Handlers.class, "explicit");
		assertThat(metadata.keyExpression()).isEqualTo("#p0");
		assertThat(metadata.namespace()).isEqualTo("payments");
		assertThat(metadata.onDuplicate()).isEqualTo(OnDuplicate.THROW);
		assertThat(metadata.storeName()).isEqualTo("redisStore");
	}

	@Test
	void fallbackNamespaceIsSimpleClassNameAndMethod() {
		assertThat(of(Handlers.class, "defaults").fallbackNamespace()).isEqualTo("Handlers#defaults");
	}

	@Test
	void fallbackNamespaceUsesTheTargetClassNotTheDeclaringClass() {
		assertThat(IdempotentMethod.of(method(Handlers.class, "defaults"), SpecialHandlers.class, TRANSPORTS, VERBATIM)
			.fallbackNamespace()).isEqualTo("SpecialHandlers#defaults");
	}

	@Test
	void defaultNamespaceNamesTheListenerByItsIdSoEveryVersionOfTheListenerSharesIt() {
		DeliveryContext delivery = new DeliveryContext("m-1", "orders-group", Map.of(), null, List.of());
		assertThat(of(RecordAckListener.class, "onOrder").namespaceFor(delivery)).isEqualTo("orders-group:orders");
		assertThat(of(ManualAckListener.class, "onOrder").namespaceFor(delivery)).isEqualTo("orders-group:orders");
		assertThat(of(StreamListener.class, "onOrder").namespaceFor(delivery)).isEqualTo("orders-group:stream-orders");
	}

	@Test
	void defaultNamespaceOfAListenerWithoutAnIdNamesTheClassAndMethod() {
		DeliveryContext delivery = new DeliveryContext("m-1", "orders-group", Map.of(), null, List.of());
		assertThat(of(UnnamedListener.class, "onOrder").namespaceFor(delivery))
			.isEqualTo("orders-group:UnnamedListener#onOrder");
		assertThat(of(UnnamedListener.class, "onOrder").namespaceFor(null)).isEqualTo("UnnamedListener#onOrder");
	}

	@Test
	void defaultNamespaceOfAClassLevelListenerNamesItsId() {
		DeliveryContext delivery = new DeliveryContext("m-1", "orders-group", Map.of(), null, List.of());
		assertThat(of(ClassLevelListener.class, "onOrder").namespaceFor(delivery)).isEqualTo("orders-group:handlers");
	}

	@Test
	void listenerIdPlaceholdersAreResolved() {
		IdempotentMethod metadata = IdempotentMethod.of(method(PlaceholderListener.class, "onOrder"),
				PlaceholderListener.class, TRANSPORTS, (value) -> value.replace("${app.listener}", " resolved "));
		assertThat(metadata.listenerId()).isEqualTo("resolved");
	}

	@Test
	void listenerIdResolvingToBlankNamesNoListener() {
		IdempotentMethod metadata = IdempotentMethod.of(method(PlaceholderListener.class, "onOrder"),
				PlaceholderListener.class, TRANSPORTS, (value) -> "  ");
		assertThat(metadata.listenerId()).isNull();
		assertThat(metadata.listener()).isEqualTo("PlaceholderListener#onOrder");
	}

	@Test
	void withoutTransportsNoAnnotationNamesTheListener() {
		IdempotentMethod metadata = IdempotentMethod.of(method(RecordAckListener.class, "onOrder"),
				RecordAckListener.class, MessageTransports.none(), VERBATIM);
		assertThat(metadata.listenerId()).isNull();
		assertThat(metadata.listener()).isEqualTo("RecordAckListener#onOrder");
	}

	@Test
	void skippedCallOfAnOptionalMethodReturnsOptionalEmpty() {
		assertThat(of(Handlers.class, "optional").skippedValue()).isEqualTo(Optional.empty());
	}

	@Test
	void skippedCallOfAPrimitiveMethodReturnsItsDefault() {
		assertThat(of(Handlers.class, "primitiveLong").skippedValue()).isEqualTo(0L);
		assertThat(of(Handlers.class, "primitiveBoolean").skippedValue()).isEqualTo(false);
		assertThat(of(Handlers.class, "primitiveInt").skippedValue()).isEqualTo(0);
	}

	@Test
	void skippedCallOfAVoidOrObjectMethodReturnsNull() {
		assertThat(of(Handlers.class, "defaults").skippedValue()).isNull();
		assertThat(of(Handlers.class, "object").skippedValue()).isNull();
	}

	@Test
	void annotationOnAnInterfaceMethodIsFound() {
		Method method = method(InterfaceHandler.class, "handle");
		assertThat(IdempotentMethod.of(method, InterfaceHandler.class, TRANSPORTS, VERBATIM).keyExpression()).isEqualTo("#p0");
	}

	@Test
	void annotationAsMetaAnnotationIsFound() {
		IdempotentMethod metadata = of(Handlers.class, "composed");
		assertThat(metadata.keyExpression()).isEqualTo("#msg.orderId");
		assertThat(metadata.namespace()).isEqualTo("orders");
	}

	private static IdempotentMethod of(Class<?> type, String methodName) {
		return IdempotentMethod.of(method(type, methodName), type, TRANSPORTS, VERBATIM);
	}

	private static Method method(Class<?> type, String methodName) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
			if (method.getName().equals(methodName)) {
				return method;
			}
		}
		throw new IllegalArgumentException(methodName);
	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Idempotent(key = "#msg.orderId", namespace = "orders")
	@interface OrderListener {

	}

	interface Handler {

		@Idempotent(key = "#p0")
		void handle(String id);

	}

	static class InterfaceHandler implements Handler {

		@Override
		public void handle(String id) {
		}

	}

	static class Handlers {

		@Idempotent
		public void defaults(String id) {
		}

		@Idempotent(key = "#p0", namespace = "payments", onDuplicate = OnDuplicate.THROW, store = "redisStore")
		public void explicit(String id) {
		}

		@Idempotent(key = "#msg.orderId")
		public void keyOnly(Object msg) {
		}

		@OrderListener
		public void composed(Object msg) {
		}

		@Idempotent(retention = "7d")
		public void sevenDays() {
		}

		@Idempotent(retention = "PT12H")
		public void twelveHours() {
		}

		@Idempotent(retention = "0s")
		public void zeroSeconds() {
		}

		@Idempotent(retention = "-1d")
		public void minusOneDay() {
		}

		@Idempotent(retention = "banana")
		public void banana() {
		}

		@Idempotent(namespace = "${app.namespace}", retention = "${app.retention}", store = "${app.store}")
		public void placeholders() {
		}

		@Idempotent
		public CompletableFuture<String> completableFuture() {
			return CompletableFuture.completedFuture("x");
		}

		@Idempotent
		public CompletionStage<String> completionStage() {
			return CompletableFuture.completedFuture("x");
		}

		@Idempotent
		public Future<String> future() {
			return CompletableFuture.completedFuture("x");
		}

		@Idempotent
		public Optional<String> optional() {
			return Optional.of("x");
		}

		@Idempotent
		public long primitiveLong() {
			return 1L;
		}

		@Idempotent
		public boolean primitiveBoolean() {
			return true;
		}

		@Idempotent
		public int primitiveInt() {
			return 1;
		}

		@Idempotent
		public String object() {
			return "x";
		}

		public void notIdempotent() {
		}

	}

	static class SpecialHandlers extends Handlers {

	}

	static class RecordAckListener {

		@KafkaListener(id = "orders", topics = "orders")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

	static class ManualAckListener {

		@KafkaListener(id = "orders", topics = "orders")
		@Idempotent(key = "#p0")
		void onOrder(String order, Object acknowledgment) {
		}

	}

	static class StreamListener {

		@RedisStreamListener(id = "stream-orders", stream = "orders", group = "orders-group")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

	@KafkaListener(id = "handlers", topics = "orders")
	static class ClassLevelListener {

		@KafkaHandler
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

	static class PlaceholderListener {

		@KafkaListener(id = "${app.listener}", topics = "orders")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

	static class UnnamedListener {

		@KafkaListener(topics = "orders")
		@Idempotent(key = "#p0")
		void onOrder(String order) {
		}

	}

}
