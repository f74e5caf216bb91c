package dev.idempotency.http;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;

/**
 * Lets the engine store a handler's {@code ResponseEntity} and read it back for a replay: written as
 * {@code {"status": 201, "headers": {"Location": ["/payments/7"]}, "body": ...}} with only the stored
 * headers, read back as the handler's {@code ResponseEntity<T>} (the body as {@code T}). A bean of
 * this type is added to the application's {@code JsonMapper} by Spring Boot, which the engine stores
 * results with.
 *
 * @since 0.2.0
 */
@SuppressWarnings("serial")
public class StoredResponseModule extends SimpleModule {

	/**
	 * Creates the module.
	 * @param settings the headers stored with a response
	 */
	public StoredResponseModule(HttpIdempotencySettings settings) {
		super("idempotency-stored-response");
		addSerializer(ResponseEntity.class, new ResponseSerializer(settings.storedHeaderNames()));
		addDeserializer(ResponseEntity.class, new ResponseDeserializer(null));
	}

	@SuppressWarnings("rawtypes")
	private static final class ResponseSerializer extends ValueSerializer<ResponseEntity> {

		private final Set<String> storedHeaders;

		ResponseSerializer(Set<String> storedHeaders) {
			this.storedHeaders = storedHeaders;
		}

		@Override
		public void serialize(ResponseEntity value, JsonGenerator generator, SerializationContext context)
				throws JacksonException {
			generator.writeStartObject();
			generator.writeNumberProperty("status", value.getStatusCode().value());
			generator.writeName("headers");
			generator.writeStartObject();
			for (Map.Entry<String, List<String>> header : value.getHeaders().headerSet()) {
				if (this.storedHeaders.contains(header.getKey().toLowerCase(java.util.Locale.ROOT))) {
					generator.writeName(header.getKey());
					generator.writeStartArray();
					for (String headerValue : header.getValue()) {
						generator.writeString(headerValue);
					}
					generator.writeEndArray();
				}
			}
			generator.writeEndObject();
			generator.writeName("body");
			context.writeValue(generator, value.getBody());
			generator.writeEndObject();
		}

	}

	@SuppressWarnings("rawtypes")
	private static final class ResponseDeserializer extends ValueDeserializer<ResponseEntity> {

		private final @Nullable JavaType bodyType;

		ResponseDeserializer(@Nullable JavaType bodyType) {
			this.bodyType = bodyType;
		}

		@Override
		public ValueDeserializer<?> createContextual(DeserializationContext context, @Nullable BeanProperty property) {
			JavaType type = context.getContextualType();
			return new ResponseDeserializer((type != null) ? type.containedTypeOrUnknown(0) : null);
		}

		@Override
		public ResponseEntity deserialize(JsonParser parser, DeserializationContext context) throws JacksonException {
			JsonNode node = context.readTree(parser);
			HttpHeaders headers = new HttpHeaders();
			JsonNode storedHeaders = node.path("headers");
			for (Map.Entry<String, JsonNode> header : storedHeaders.properties()) {
				for (JsonNode headerValue : header.getValue()) {
					headers.add(header.getKey(), headerValue.asString());
				}
			}
			JsonNode body = node.get("body");
			Object value = (body == null || body.isNull() || this.bodyType == null) ? null
					: context.readTreeAsValue(body, this.bodyType);
			return new ResponseEntity<>(value, headers, HttpStatusCode.valueOf(node.path("status").asInt(200)));
		}

	}

}
