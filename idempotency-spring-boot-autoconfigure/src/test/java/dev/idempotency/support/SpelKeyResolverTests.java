package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.expression.EvaluationException;
import org.springframework.expression.ParseException;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link SpelKeyResolver}.
 */
class SpelKeyResolverTests {

	private final SpelKeyResolver resolver = new SpelKeyResolver();

	private final Handlers target = new Handlers();

	@Test
	void parameterIsReferencedByItsName() {
		assertThat(resolve("#msg.orderId", "onOrder", new OrderPlaced("order-1", 10))).isEqualTo("order-1");
	}

	@Test
	void javaBeanPropertyIsReferencedByItsName() {
		assertThat(resolve("#msg.orderId", "onBean", new OrderBean("order-2"))).isEqualTo("order-2");
	}

	@Test
	void parameterIsReferencedByItsPosition() {
		assertThat(resolve("#p0.orderId + ':' + #p1", "onOrderFrom", new OrderPlaced("order-1", 10), "eu"))
			.isEqualTo("order-1:eu");
		assertThat(resolve("#a1", "onOrderFrom", new OrderPlaced("order-1", 10), "eu")).isEqualTo("eu");
	}

	@Test
	void argumentsAreReachableThroughTheRoot() {
		assertThat(resolve("#root.args[1]", "onOrderFrom", new OrderPlaced("order-1", 10), "eu")).isEqualTo("eu");
		assertThat(resolve("#root.method.name + ':' + #root.args[0].orderId", "onOrder", new OrderPlaced("o-9", 1)))
			.isEqualTo("onOrder:o-9");
		assertThat(resolve("#root.target.prefix + #msg.orderId", "onOrder", new OrderPlaced("o-9", 1)))
			.isEqualTo("handlers-o-9");
	}

	@Test
	void deliveryVariablesAreAvailableToTheExpression() {
		DeliveryContext delivery = new DeliveryContext("m-1", "group", Map.of("record",
				new ConsumedRecord("orders", 3, 42L), "headers", Map.of("tenant", "acme")), null, List.of());
		assertThat(resolve("#record.topic + ':' + #record.partition + ':' + #record.offset", "onOrder", delivery,
				new OrderPlaced("order-1", 10)))
			.isEqualTo("orders:3:42");
		assertThat(resolve("#headers['tenant'] + '/' + #msg.orderId", "onOrder", delivery,
				new OrderPlaced("order-1", 10)))
			.isEqualTo("acme/order-1");
	}

	@Test
	void variableAssignedInTheExpressionIsVisibleAfterwards() {
		assertThat(resolve("(#id = #msg.orderId) + '/' + #id", "onOrder", new OrderPlaced("order-7", 1)))
			.isEqualTo("order-7/order-7");
	}

	@Test
	void unknownVariableIsNullAndRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#p7", "onOrder", new OrderPlaced("order-1", 10)))
			.withMessageContaining("resolved to null");
	}

	@Test
	void nonStringKeysAreConvertedWithToString() {
		UUID id = UUID.randomUUID();
		assertThat(resolve("#p0", "onAny", 42L)).isEqualTo("42");
		assertThat(resolve("#p0", "onAny", id)).isEqualTo(id.toString());
		assertThat(resolve("#msg.points", "onOrder", new OrderPlaced("order-1", 10))).isEqualTo("10");
	}

	@Test
	void nullKeyIsRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.orderId", "onOrder", new OrderPlaced(null, 10)))
			.withMessageContaining("#msg.orderId")
			.withMessageContaining("Handlers#onOrder")
			.withMessageContaining("null");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "\t" })
	void blankKeyIsRejected(String blank) {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.orderId", "onOrder", new OrderPlaced(blank, 10)))
			.withMessageContaining("#msg.orderId")
			.withMessageContaining("blank");
	}

	@Test
	void expressionThatDoesNotParseIsRejectedNamingTheExpression() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.orderId +", "onOrder", new OrderPlaced("order-1", 10)))
			.withMessageContaining("'#msg.orderId +'")
			.withMessageContaining("Handlers#onOrder")
			.withCauseInstanceOf(ParseException.class);
	}

	@Test
	void expressionThatNavigatesThroughNullIsRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.customer.id", "onShipment", new Shipment(null)))
			.withMessageContaining("#msg.customer.id")
			.withCauseInstanceOf(EvaluationException.class);
	}

	@Test
	void unknownPropertyIsRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.nope", "onOrder", new OrderPlaced("order-1", 10)))
			.withMessageContaining("#msg.nope")
			.withCauseInstanceOf(EvaluationException.class);
	}

	@Test
	void expressionThatNavigatesThroughNullIsRejectedAfterItWasCompiled() {
		// SpEL compiles the expression after 100 interpreted runs (mixed mode); a compiled expression
		// must still fail as an invalid key, not with a NullPointerException.
		for (int i = 0; i < 250; i++) {
			assertThat(resolve("#msg.customer.id", "onShipment", new Shipment(new Customer("c-" + i))))
				.isEqualTo("c-" + i);
		}
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("#msg.customer.id", "onShipment", new Shipment(null)));
		assertThat(resolve("#msg.customer.id", "onShipment", new Shipment(new Customer("c-again"))))
			.isEqualTo("c-again");
	}

	@Test
	void sameExpressionOnDifferentMethodsUsesEachMethodsParameters() {
		assertThat(resolve("#msg.orderId", "onOrder", new OrderPlaced("order-1", 10))).isEqualTo("order-1");
		assertThat(resolve("#msg.orderId", "onBean", new OrderBean("order-2"))).isEqualTo("order-2");
	}

	@Test
	void emptyExpressionUsesTheDeliveryMessageId() {
		DeliveryContext delivery = new DeliveryContext("orders:3:42", null, Map.of(), null, List.of());
		assertThat(resolve("", "onOrder", delivery, new OrderPlaced("order-1", 10))).isEqualTo("orders:3:42");
	}

	@Test
	void emptyExpressionWithoutDeliveryIsRejected() {
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("", "onOrder", new OrderPlaced("order-1", 10)))
			.withMessageContaining("Handlers#onOrder")
			.withMessageContaining("no message id");
	}

	@Test
	void emptyExpressionWithADeliveryWithoutMessageIdIsRejected() {
		DeliveryContext delivery = new DeliveryContext(null, "group", Map.of(), null, List.of());
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> resolve("", "onOrder", delivery, new OrderPlaced("order-1", 10)))
			.withMessageContaining("null");
	}

	private String resolve(String expression, String methodName, @Nullable Object... args) {
		return resolve(expression, methodName, (DeliveryContext) null, args);
	}

	private String resolve(String expression, String methodName, @Nullable DeliveryContext delivery,
			@Nullable Object... args) {
		return this.resolver.resolve(expression, method(methodName), args, this.target, delivery);
	}

	private static Method method(String name) {
		for (Method method : Handlers.class.getDeclaredMethods()) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	public record OrderPlaced(@Nullable String orderId, int points) {
	}

	public record ConsumedRecord(String topic, int partition, long offset) {
	}

	public record Customer(String id) {
	}

	public record Shipment(@Nullable Customer customer) {
	}

	public static class OrderBean {

		private final String orderId;

		OrderBean(String orderId) {
			this.orderId = orderId;
		}

		public String getOrderId() {
			return this.orderId;
		}

	}

	public static class Handlers {

		public String getPrefix() {
			return "handlers-";
		}

		public void onOrder(OrderPlaced msg) {
		}

		public void onOrderFrom(OrderPlaced msg, String region) {
		}

		public void onBean(OrderBean msg) {
		}

		public void onAny(Object msg) {
		}

		public void onShipment(Shipment msg) {
		}

	}

}
