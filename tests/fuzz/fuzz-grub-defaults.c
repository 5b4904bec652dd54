/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /etc/default/grub as sh would source it: the input split into two files. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "boot/boot.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), *second;
	struct sl_sh_file files[2];
	struct sl_grub_result res = { 0 };

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* A NUL byte in the input starts the second file (a grub.d drop-in). */
	second = text + strlen(text);
	if (second < text + size)
		second++;
	files[0] = (struct sl_sh_file){ "/etc/default/grub", text };
	files[1] = (struct sl_sh_file){ "/etc/default/grub.d/x.cfg", second };
	if (sl_grub_eval(files, 2, &res) == 0) {
		for (size_t i = 0; i < res.n_assigns; i++) {
			const struct sl_grub_assign *a = &res.assigns[i];
			size_t len = strlen(files[a->file].text);

			if (a->file > 1 || a->value_start > a->value_end || a->value_end > len)
				abort();
		}
	}
	sl_grub_result_free(&res);
	free(text);
	return 0;
}
