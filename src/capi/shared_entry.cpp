// Anchor translation unit of libadaptcore.so; the code comes from adaptcore_core.
