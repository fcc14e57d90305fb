// The JSON Schema validator of the generated forms (tool arguments, elicitation and sampling forms).
//
// rjsf's usual validator (Ajv) compiles every schema into JavaScript with `new Function`, which the page's
// Content-Security-Policy forbids (no 'unsafe-eval'), and the schemas come from the MCP server being
// inspected, so they are hostile input. `jsonschema` interprets a schema instead of compiling it; this
// adapter gives its errors the shape rjsf expects (`property` paths like `.party_size`, `required` errors
// on the missing field). Ajv is not installed at all (@rjsf/validator-ajv8 is not a dependency): the forms
// import `@rjsf/core/lib/components/Form.js`, not "@rjsf/core", whose index also exports a test helper
// that imports it.
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";
import { Validator, type Schema, type ValidationError } from "jsonschema";

// Where `$ref`s of a sub-schema point to: the form's whole schema, registered under this URI.
const ROOT = "https://mcp-inspector.invalid/form-root"; // a name only: jsonschema never fetches
// Errors that only say "a child failed": the child's own error is the useful one.
const CONTAINERS = new Set(["properties", "items", "prefixItems", "additionalItems", "allOf", "$ref"]);

function pointer(path: (string | number)[]): string {
  return path.map((p) => `.${p}`).join("");
}

function toRjsf(e: ValidationError): RJSFValidationError {
  let property = pointer(e.path);
  const params: Record<string, unknown> = {};
  let message = e.message;
  if (e.name === "required") {
    // rjsf shows a missing-field error on the field itself, as Ajv reports it (`missingProperty`).
    params.missingProperty = e.argument;
    property = `${property}.${String(e.argument)}`;
    message = `must have required property '${String(e.argument)}'`;
  }
  const schemaPath = `#${e.path.map((p) => `/properties/${p}`).join("")}/${e.name}`;
  return { name: e.name, property, message, params, stack: `${property} ${message}`.trim(), schemaPath };
}

class InterpretingValidator implements ValidatorType {
  private validator = new Validator();
  private root: RJSFSchema | undefined;

  private errors(schema: RJSFSchema, formData: unknown): ValidationError[] {
    const result = this.validator.validate(formData, schema as Schema, { base: ROOT, nestedErrors: false });
    return result.errors.filter((e) => !CONTAINERS.has(e.name));
  }

  private useRoot(rootSchema: RJSFSchema) {
    if (this.root !== rootSchema) {
      this.validator.addSchema(rootSchema as Schema, ROOT);
      this.root = rootSchema;
    }
  }

  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator,
    transformErrors?: ErrorTransformer,
    uiSchema?: UiSchema,
  ): ValidationData<unknown> {
    this.useRoot(schema);
    let errors: RJSFValidationError[];
    try {
      errors = this.errors(schema, formData).map(toRjsf);
    } catch (e) {
      errors = [{ stack: `the schema cannot be used: ${(e as Error).message}` }];
    }
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema(errors);
    if (!customValidate) return { errors, errorSchema };
    const full = getDefaultFormState(this, schema, formData, schema, true);
    const handler = customValidate(full, createErrorHandler(full), uiSchema, errorSchema);
    return validationDataMerge({ errors, errorSchema }, unwrapErrorHandler(handler));
  }

  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    try {
      this.useRoot(rootSchema);
      return this.errors(schema, formData).length === 0;
    } catch {
      return false;
    }
  }

  rawValidation<Result = ValidationError>(schema: RJSFSchema, formData?: unknown) {
    try {
      return { errors: this.errors(schema, formData) as Result[] };
    } catch (e) {
      return { validationError: e as Error };
    }
  }

  reset() {
    this.validator = new Validator();
    this.root = undefined;
  }
}

export const formValidator = new InterpretingValidator();
